#!/usr/bin/env python3
"""Write tests/data/token_counts.json: texts and tiktoken's own counts, checked in CPython and in the page.

Needs the test extra (tiktoken) and the rank files (`npm ci`). Re-run after changing bench/_text.py.
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "py"), str(ROOT / "bench")]

import _text  # noqa: E402

from fitproof.tokenizers import EXACT  # noqa: E402

texts = _text.strings(360, seed=7) + [piece[:3000] for piece in _text.long_pieces(3000)] + [_text.mixed_text(5000, seed=3)]
references = {name: _text.reference_encoding(name) for name in EXACT}
cases = [{"text": text, **{name: len(encoding.encode_ordinary(text)) for name, encoding in references.items()}} for text in texts]
out = ROOT / "tests" / "data" / "token_counts.json"
out.write_text(json.dumps(cases, ensure_ascii=True, indent=0) + "\n", encoding="utf-8")
print(f"wrote {len(cases)} cases to {out}")
