#!/usr/bin/python3
"""Regenerate docs/parameters.md's table from `build/saturn params`
(tests/integration/test_docs.cpp fails while they differ). SATURN_BINARY selects another build."""
import os
import pathlib
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parent.parent
binary = pathlib.Path(os.environ.get("SATURN_BINARY", root / "build" / "saturn"))
table = subprocess.run([str(binary), "params"], check=True, capture_output=True, text=True).stdout.strip()
page = root / "docs" / "parameters.md"
text = page.read_text()
start = text.index("\n| key |") + 1   # the table is the rest of the page
page.write_text(text[:start] + table + "\n")
print("docs/parameters.md: parameter reference updated", file=sys.stderr)
