"""How Audrey's async twins are made: the core is synchronous (SQLite and local models block), so each twin runs its
method in a worker thread, off the event loop. A twin is built from its method, so it has the method's signature
(editors and type checkers see it, ``inspect.signature`` shows it) and there is one implementation per behaviour."""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from typing import Any, Concatenate, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")
S = TypeVar("S")
T = TypeVar("T")
_END = object()


def twin(method: Callable[Concatenate[S, P], R]) -> Callable[Concatenate[S, P], Coroutine[Any, Any, R]]:
    """``a<name>``: ``await``-able ``method`` (looked up on the instance, so a subclass's override is the one run)."""
    name = method.__name__

    @functools.wraps(method)
    async def run(self: S, *args: P.args, **kwargs: P.kwargs) -> R:
        return await asyncio.to_thread(getattr(self, name), *args, **kwargs)

    run.__name__, run.__qualname__ = f"a{name}", _beside(method, f"a{name}")
    run.__doc__ = f"Async :meth:`{name}` (same arguments), run in a worker thread off the event loop."
    return run


def stream_twin(method: Callable[Concatenate[S, P], Iterator[T]]) -> Callable[Concatenate[S, P], AsyncIterator[T]]:
    """``a<name>`` for a method returning an iterator: ``async for item in brain.a<name>(...)``. Each item is
    produced in a worker thread; leaving the loop early closes the iterator (what it finalises runs then)."""
    name = method.__name__

    @functools.wraps(method)
    async def run(self: S, *args: P.args, **kwargs: P.kwargs) -> AsyncIterator[T]:
        stream = await asyncio.to_thread(getattr(self, name), *args, **kwargs)
        try:
            while True:
                item = await asyncio.to_thread(next, stream, _END)
                if item is _END:
                    return
                yield item
        finally:
            await asyncio.to_thread(stream.close)

    run.__name__, run.__qualname__ = f"a{name}", _beside(method, f"a{name}")
    run.__doc__ = f"Async :meth:`{name}`: ``async for r in brain.a{name}(...)`` (same arguments)."
    run.__signature__ = _returning(method, "AsyncIterator[")  # type: ignore[attr-defined]
    return run


def collected(stream: Callable[P, Iterator[T]], summary: str) -> Callable[P, list[T]]:
    """A method returning the list of what ``stream`` yields, with ``stream``'s signature and documentation (its
    first paragraph replaced by ``summary``): one signature, two methods, as ``recall`` and ``recall_stream``."""

    @functools.wraps(stream)
    def collect(*args: P.args, **kwargs: P.kwargs) -> list[T]:
        return list(stream(*args, **kwargs))

    name = stream.__name__.removesuffix("_stream")
    collect.__name__, collect.__qualname__ = name, _beside(stream, name)
    rest = (stream.__doc__ or "").partition("\n\n")[2]
    collect.__doc__ = f"{summary}\n\n{rest}" if rest else summary
    collect.__signature__ = _returning(stream, "list[")  # type: ignore[attr-defined]
    return collect


def _beside(method: Callable[..., Any], name: str) -> str:
    """The qualified name of ``name`` in ``method``'s class (``Audrey.arecall``), so tools see it as a method there."""
    owner = method.__qualname__.rpartition(".")[0]
    return f"{owner}.{name}" if owner else name


def _returning(method: Callable[..., Any], container: str) -> inspect.Signature:
    """``method``'s signature with ``Iterator[T]`` returned as ``container``T``]``."""
    signature = inspect.signature(method)
    returned = str(signature.return_annotation).replace("Iterator[", container, 1)
    return signature.replace(return_annotation=returned)
