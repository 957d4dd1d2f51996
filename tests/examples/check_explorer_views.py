#!/usr/bin/env python3
# tests/examples/check_explorer_views.py DOM KIND — checks, in the attention explorer's DOM as
# headless Chromium rendered it with "#sentence=1&kind=KIND&head=mean&values=scores", the views
# that check_explorer_dom.py does not: the average over the heads of the scores before the
# softmax (each cell's title holds the mean of the heads' scores, "masked" where they are
# null), the piece each decoder row produced on the row's right, the line on what to look for in
# that kind of attention, and the note that layers and heads count from 0. Prints what it checked; exits 1 on a mismatch.
import sys

from check_explorer_dom import TreeBuilder, by_id
import json


def main(path, kind):
    builder = TreeBuilder()
    with open(path, encoding="utf-8") as file:
        builder.feed(file.read())
    root = builder.root
    data = json.loads(by_id(root, "explorer-data").all_text())
    attention = next(m for m in data["sentences"][1]["maps"] if m["kind"] == kind)
    failures = []
    grids = list(by_id(root, "maps").find_all("svg", "heatmap"))
    if len(grids) != 1 or grids[0].attributes.get("data-head") != "mean" or \
            grids[0].attributes.get("data-values") != "scores":
        failures.append(f"wanted one grid of the heads' mean scores, got "
                        f"{[(g.attributes.get('data-head'), g.attributes.get('data-values')) for g in grids]}")
    else:
        scores = attention["scores"]
        for cell in grids[0].find_all("rect", "cell"):
            r, c = int(cell.attributes["data-row"]), int(cell.attributes["data-column"])
            values = [head[r][c] for head in scores]
            title = next(cell.find_all("title")).all_text()
            if any(v is None for v in values):
                wanted = "masked"
            else:
                wanted = f"score {sum(values) / len(values):.4f}"
            if not title.endswith(wanted) and not (wanted == "masked" and "masked" in title):
                failures.append(f"cell ({r}, {c}): title {title!r}, wanted it to end {wanted!r}")
        outputs = [n.all_text() for n in grids[0].find_all("text", "output")]
        if outputs != ["→ " + piece for piece in attention["outputs"]]:
            failures.append(f"row outputs {outputs}, data {attention['outputs']}")
    guide = by_id(root, "kind-guide").all_text()
    if "Masked self-attention, lesson 07" not in guide or "above the diagonal" not in guide:
        failures.append(f"the line on what to look for in masked self-attention is missing: "
                        f"{guide!r}")
    notes = by_id(root, "notes").all_text()
    if "count from 0" not in notes:
        failures.append(f"the notes do not say that layers and heads count from 0: {notes!r}")
    if failures:
        print("\n".join(failures[:20]))
        sys.exit(1)
    print(f"{path}: the mean of {len(attention['scores'])} heads' scores, "
          f"{len(attention['outputs'])} output pieces and the counting note checked")


if __name__ == "__main__":
    main(*sys.argv[1:3])
