"""The ONNX graph of a BERT sentence-transformers model (all-MiniLM-L6-v2 among them), written from its safetensors
weights with numpy and onnx alone: no torch, so a wheel's build can make the graph the ``onnx`` extra runs (see
docs/install.md), and an install without torch can make a model's graph once.

The graph is the transformer only (token ids, attention mask and token types in; the last hidden state out; any batch
and length), as transformers' eager BERT computes it: embeddings summed and normalised, then per layer self-attention
with the mask added to the scores as a large negative number, a residual and normalisation, an exact (erf) GELU
feed-forward, a residual and normalisation. :class:`~audrey_core.providers.onnx_local.OnnxEmbedder` pools and
normalises. Weights may be stored as float16 (half the file) and are widened to float32 once, when ONNX Runtime loads
the graph: the arithmetic is float32 either way.
"""

from __future__ import annotations

import json
import math
import os
import struct
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

OPSET = 17
BUILDER = f"numpy-onnx-opset{OPSET}-v1"  # what an export key says about how a graph was made
_DTYPES = {"F32": np.float32, "F16": np.float16, "BF16": None, "I64": np.int64, "I32": np.int32}


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Every tensor of a ``.safetensors`` file (an 8-byte header length, a JSON header, the raw data), as arrays."""
    data = path.read_bytes()
    (header_length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + header_length])
    body = memoryview(data)[8 + header_length :]
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES.get(entry["dtype"])
        if dtype is None:
            raise ValueError(f"{path}: tensor {name} has dtype {entry['dtype']}, which this reader does not take")
        start, end = entry["data_offsets"]
        tensors[name] = np.frombuffer(body[start:end], dtype=dtype).reshape(entry["shape"])
    return tensors


def can_build(model_dir: Path) -> bool:
    """Whether ``model_dir`` holds a BERT this module writes: absolute positions, GELU, safetensors weights."""
    config_path = model_dir / "config.json"
    if not (model_dir / "model.safetensors").is_file() or not config_path.is_file():
        return False
    config = json.loads(config_path.read_text())
    return (
        config.get("model_type") == "bert"
        and config.get("position_embedding_type", "absolute") == "absolute"
        and config.get("hidden_act") == "gelu"
    )


def build_graph(model_dir: Path, target: Path, *, half_weights: bool = False) -> None:
    """Write the transformer of the BERT in ``model_dir`` to ``target`` (see the module's docstring), beside its final
    name and renamed into place. ``half_weights`` stores the weight matrices and embeddings as float16."""
    import onnx

    model = _BertGraph(model_dir, half_weights).model()
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix="graph-", suffix=".onnx", dir=target.parent)
    os.close(handle)
    try:
        onnx.save_model(model, temporary)
        os.chmod(temporary, 0o644)  # readable by the machine's other users, as the model's own files
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


class _BertGraph:
    """The nodes and initializers of one BERT's graph, added in order."""

    def __init__(self, model_dir: Path, half_weights: bool) -> None:
        self.config = json.loads((model_dir / "config.json").read_text())
        weights = read_safetensors(model_dir / "model.safetensors")
        self.weights = {name.removeprefix("bert."): array for name, array in weights.items()}
        self.half = half_weights
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []
        self._names = 0

    # -- helpers ----------------------------------------------------------------------------------------------------

    def _name(self, hint: str) -> str:
        self._names += 1
        return f"{hint}_{self._names}"

    def node(self, op: str, inputs: list[str], hint: str | None = None, **attributes: Any) -> str:
        from onnx import helper

        output = self._name(hint or op.lower())
        self.nodes.append(helper.make_node(op, inputs, [output], **attributes))
        return output

    def constant(self, name: str, array: np.ndarray) -> str:
        from onnx import numpy_helper

        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def weight(self, key: str, transpose: bool = False) -> str:
        """A model weight as float32 in the graph: a matrix or embedding table stored half-width when asked."""
        array = np.asarray(self.weights[key], dtype=np.float32)
        array = array.T if transpose else array
        if self.half and array.ndim == 2:
            return self.node("Cast", [self.constant(key, array.astype(np.float16))], f"{key}_float", to=1)
        return self.constant(key, array)

    def linear(self, x: str, prefix: str) -> str:
        product = self.node("MatMul", [x, self.weight(f"{prefix}.weight", transpose=True)])
        return self.node("Add", [product, self.weight(f"{prefix}.bias")])

    def layer_norm(self, x: str, prefix: str) -> str:
        epsilon = float(self.config.get("layer_norm_eps", 1e-12))
        scale, bias = self.weight(f"{prefix}.weight"), self.weight(f"{prefix}.bias")
        return self.node("LayerNormalization", [x, scale, bias], "layer_norm", axis=-1, epsilon=epsilon)

    # -- the model ----------------------------------------------------------------------------------------------------

    def model(self) -> Any:
        from onnx import TensorProto, helper

        hidden = int(self.config["hidden_size"])
        heads = int(self.config["num_attention_heads"])
        x = self.embeddings()
        mask = self.mask_bias()
        for layer in range(int(self.config["num_hidden_layers"])):
            x = self.layer(x, mask, f"encoder.layer.{layer}", heads, hidden // heads)
        axes = ["batch", "length"]
        inputs = [
            helper.make_tensor_value_info(name, TensorProto.INT64, axes)
            for name in ("input_ids", "attention_mask", "token_type_ids")
        ]
        self.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"]))
        output = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, [*axes, hidden])
        graph = helper.make_graph(self.nodes, "bert", inputs, [output], self.initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name=BUILDER)
        model.ir_version = 8  # read by every ONNX Runtime the extras allow (>= 1.17)
        return model

    def embeddings(self) -> str:
        length = self.node("Shape", ["input_ids"], "length", start=1, end=2)  # [length]
        start = self.constant("start", np.array([0], dtype=np.int64))
        words = self.node("Gather", [self.weight("embeddings.word_embeddings.weight"), "input_ids"], "words")
        table = self.weight("embeddings.position_embeddings.weight")
        places = self.node("Slice", [table, start, length, start], "places")  # rows 0 .. length-1, on axis 0
        kinds = self.node("Gather", [self.weight("embeddings.token_type_embeddings.weight"), "token_type_ids"], "kinds")
        summed = self.node("Add", [self.node("Add", [words, places]), kinds], "embedded")
        return self.layer_norm(summed, "embeddings.LayerNorm")

    def mask_bias(self) -> str:
        """The attention mask as transformers adds it to the scores: 0 where a token is, float32's lowest where
        padding is, shaped (batch, 1, 1, length)."""
        kept = self.node("Cast", ["attention_mask"], "kept", to=1)
        lowest = self.constant("lowest", np.array(np.finfo(np.float32).min, dtype=np.float32))
        padding = self.node("Sub", [self.constant("unit", np.array(1.0, dtype=np.float32)), kept], "padding")
        bias = self.node("Mul", [padding, lowest], "mask_bias")
        return self.node("Unsqueeze", [bias, self.constant("mask_axes", np.array([1, 2], dtype=np.int64))])

    def layer(self, x: str, mask: str, prefix: str, heads: int, width: int) -> str:
        split = self.constant(f"{prefix}.split", np.array([0, 0, heads, width], dtype=np.int64))
        joined = self.constant(f"{prefix}.joined", np.array([0, 0, heads * width], dtype=np.int64))

        def by_head(projection: str, perm: list[int]) -> str:
            return self.node("Transpose", [self.node("Reshape", [projection, split])], perm=perm)

        attention = f"{prefix}.attention"
        query = by_head(self.linear(x, f"{attention}.self.query"), [0, 2, 1, 3])
        key = by_head(self.linear(x, f"{attention}.self.key"), [0, 2, 3, 1])
        value = by_head(self.linear(x, f"{attention}.self.value"), [0, 2, 1, 3])
        scale = self.constant(f"{prefix}.scale", np.array(1.0 / math.sqrt(width), dtype=np.float32))
        scores = self.node("Add", [self.node("Mul", [self.node("MatMul", [query, key]), scale]), mask], "scores")
        weights = self.node("Softmax", [scores], "attention", axis=-1)
        context = self.node("Transpose", [self.node("MatMul", [weights, value])], perm=[0, 2, 1, 3])
        context = self.node("Reshape", [context, joined], "context")
        attended = self.node("Add", [self.linear(context, f"{attention}.output.dense"), x], "residual")
        attended = self.layer_norm(attended, f"{attention}.output.LayerNorm")
        inner = self.linear(attended, f"{prefix}.intermediate.dense")
        root_half = self.constant(f"{prefix}.root_half", np.array(1.0 / math.sqrt(2.0), dtype=np.float32))
        one = self.constant(f"{prefix}.one", np.array(1.0, dtype=np.float32))
        half = self.constant(f"{prefix}.half", np.array(0.5, dtype=np.float32))
        erf = self.node("Erf", [self.node("Mul", [inner, root_half])])
        gelu = self.node("Mul", [self.node("Mul", [inner, half]), self.node("Add", [erf, one])], "gelu")
        out = self.node("Add", [self.linear(gelu, f"{prefix}.output.dense"), attended], "residual")
        return self.layer_norm(out, f"{prefix}.output.LayerNorm")
