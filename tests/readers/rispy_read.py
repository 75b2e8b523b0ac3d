"""Reads a RIS file with rispy, as a Python user would, and prints its records as JSON.

Run by `cargo test` (tests/it/export.rs) with the Python of $CITE_READERS_PYTHON, where
requirements.txt is installed: python rispy_read.py FILE
"""

import json
import sys

import rispy

with open(sys.argv[1], encoding="utf-8") as f:
    print(json.dumps(rispy.load(f)))
