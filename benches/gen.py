#!/usr/bin/env python3
"""Generated inputs for the memory measurements in measure.sh, streamed to a file.

  gen.py sources-py N OUT          a sources.py ledger of N sources (ids 1..N, every
                                   tenth with two quotes), as sources.py writes it
  gen.py draft BYTES IDS OUT [SHAPE]
                                   a draft of about BYTES citing ids 1..IDS in turn,
                                   ending with a Sources block whose URLs are those of
                                   `gen.py sources-py`. SHAPE `prose` (the default):
                                   paragraphs of two-sentence lines, with headings,
                                   tables, fenced blocks and inline code mixed in;
                                   `lines`: one short cited sentence per line
"""
import json
import sys


def url(i):
    return f"https://site{i % 1000}.example/page/{i}"


def sources_py(n, out):
    with open(out, "w") as f:
        f.write('{\n  "version": 1,\n  "sources": [')
        for i in range(1, n + 1):
            entry = {"id": i, "url": url(i), "title": f"Page {i} of a generated corpus",
                     "accessed": "2025-03-01"}
            if i % 10 == 0:
                entry["quotes"] = [
                    {"text": f"The measured value for item {i} was stable.",
                     "added": "2025-03-02"},
                    {"text": "A second verbatim sentence from the page.",
                     "added": "2025-03-03"},
                ]
            f.write(("," if i > 1 else "") + "\n    " + json.dumps(entry))
        f.write("\n  ]\n}\n")


def draft(size, ids, out, shape):
    written, i, cite = 0, 0, 0
    with open(out, "w") as f:
        while written < size:
            i += 1
            if shape == "lines":
                cite += 1
                chunk = f"Claim {i} is stated here [{cite % ids + 1}].\n"
            elif i % 500 == 0:
                chunk = f"\n## Section {i // 500}\n\n| a | b |\n|---|---|\n| {i} | x |\n\n"
            elif i % 700 == 0:
                chunk = "\n```\nlet x = [1];\n```\n\n"
            else:
                cite += 1
                chunk = (f"Claim {i} is supported by its source with `code` and care "
                         f"[{cite % ids + 1}]. A second clause follows it here [tool:web]. ")
                if i % 4 == 0:
                    chunk += "\n\n"
            f.write(chunk)
            written += len(chunk)
        f.write("\n\n## Sources\n\n")
        for j in range(1, ids + 1):
            f.write(f"[{j}] {url(j)} — Page {j} of a generated corpus\n")


if __name__ == "__main__":
    cmd = sys.argv[1:2]
    if cmd == ["sources-py"] and len(sys.argv) == 4:
        sources_py(int(sys.argv[2]), sys.argv[3])
    elif cmd == ["draft"] and len(sys.argv) in (5, 6):
        shape = sys.argv[5] if len(sys.argv) == 6 else "prose"
        if shape not in ("prose", "lines"):
            sys.exit(__doc__)
        draft(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], shape)
    else:
        sys.exit(__doc__)
