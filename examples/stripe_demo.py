"""The seed's Stripe rate-limit story (the code lives in audrey_core/admin/demo.py; `audrey demo` runs the same).

python examples/stripe_demo.py [--llm-model gpt-4o-mini] [--llm-base-url http://localhost:8000/v1]
"""

import sys

from audrey_core.admin.demo import main

if __name__ == "__main__":
    sys.exit(main())
