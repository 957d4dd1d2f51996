#!/usr/bin/env python3
# tests/examples/check_explorer_dom.py DOM KIND HEADS CHARTS — checks the DOM of the attention
# explorer (examples/base/pages/explorer.html) as headless Chromium rendered it (--dump-dom)
# against the data inside the same page: for the first sentence's map of attention KIND, layer
# 0, HEADS ("all" or a head number) must be drawn, one SVG per head, with a cell for every
# (query, key) pair whose hover title names both tokens and the weight; the query and key
# labels are the tokens; the colour scale states its range; with CHARTS = "charts" every line
# of every chart is a polyline with one point per value, with ticks and axis labels, and with
# "none" the page says there was no training run. Prints what it checked; exits 1 on a mismatch.
import json
import sys
from html.parser import HTMLParser


class Node:
    def __init__(self, tag, attributes, parent):
        self.tag, self.attributes, self.parent = tag, dict(attributes), parent
        self.children, self.text = [], ""

    def classes(self):
        return self.attributes.get("class", "").split()

    def find_all(self, tag=None, css_class=None):
        for child in self.children:
            if ((tag is None or child.tag == tag) and
                    (css_class is None or css_class in child.classes())):
                yield child
            yield from child.find_all(tag, css_class)

    def all_text(self):
        return self.text + "".join(child.all_text() for child in self.children)


class TreeBuilder(HTMLParser):
    VOID = {"meta", "link", "br", "img", "input", "hr"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("document", {}, None)
        self.current = self.root

    def handle_starttag(self, tag, attributes):
        node = Node(tag, attributes, self.current)
        self.current.children.append(node)
        if tag not in self.VOID:
            self.current = node

    def handle_startendtag(self, tag, attributes):
        self.current.children.append(Node(tag, attributes, self.current))

    def handle_endtag(self, tag):
        node = self.current
        while node is not self.root and node.tag != tag:
            node = node.parent
        if node is not self.root:
            self.current = node.parent

    def handle_data(self, data):
        self.current.text += data


failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def by_id(root, identifier):
    return next((n for n in root.find_all() if n.attributes.get("id") == identifier), None)


def main(path, kind, heads_wanted, charts_wanted):
    builder = TreeBuilder()
    with open(path, encoding="utf-8") as file:
        builder.feed(file.read())
    root = builder.root
    data = json.loads(by_id(root, "explorer-data").all_text())
    sentence = data["sentences"][0]
    attention = next(m for m in sentence["maps"] if m["kind"] == kind and m["layer"] == 0)
    heads = list(range(len(attention["heads"]))) if heads_wanted == "all" else [int(heads_wanted)]
    rows, columns = len(attention["queries"]), len(attention["keys"])

    options = list(by_id(root, "sentence").find_all("option"))
    check(len(options) == len(data["sentences"]),
          f"{len(options)} sentences to pick, the data has {len(data['sentences'])}")
    grids = list(by_id(root, "maps").find_all("svg", "heatmap"))
    check([int(g.attributes["data-head"]) for g in grids] == heads,
          f"heads drawn {[g.attributes.get('data-head') for g in grids]}, wanted {heads}")
    cells_checked = 0
    for grid in grids:
        head = int(grid.attributes["data-head"])
        cells = list(grid.find_all("rect", "cell"))
        check(len(cells) == rows * columns,
              f"head {head}: {len(cells)} cells for {rows} queries x {columns} keys")
        queries = [n.all_text() for n in grid.find_all("text", "query")]
        keys = [n.all_text() for n in grid.find_all("text", "key")]
        check(queries == attention["queries"], f"head {head}: query labels {queries}")
        check(keys == attention["keys"], f"head {head}: key labels {keys}")
        for cell in cells:
            r, c = int(cell.attributes["data-row"]), int(cell.attributes["data-column"])
            value = attention["heads"][head][r][c]
            title = next(cell.find_all("title")).all_text()
            shown = "masked" if value is None else f"{value:.4f}"
            wanted = f"head {head}: {attention['queries'][r]} → {attention['keys'][c]}: {shown}"
            check(title.startswith(wanted), f"cell ({r}, {c}) of head {head}: title {title!r}, "
                                             f"wanted {wanted!r}")
            cells_checked += 1
    legend = next(by_id(root, "legend").find_all("text", "high"), None)
    check(legend is not None and legend.all_text() == "1.000",
          "the colour scale does not say its range is 0 to 1.000")

    lines_checked = 0
    drawn = list(by_id(root, "charts").find_all("svg", "chart"))
    if charts_wanted == "charts":
        charts = [c for c in data["charts"] if any(line["x"] for line in c["lines"])]
        check(len(drawn) == len(charts), f"{len(drawn)} charts drawn for {len(charts)}")
        for chart in charts:
            for line in chart["lines"]:  # the dev loss too: one point per checkpoint
                check(len(line["x"]) >= 2, f"chart {chart['title']!r}, line {line['name']!r}: "
                                           f"{len(line['x'])} values in the run's history")
        for chart, svg in zip(charts, drawn):
            curves = {p.attributes["data-line"]: p.attributes["points"].split()
                      for p in svg.find_all("polyline", "curve")}
            for line in chart["lines"]:
                points = curves.get(line["name"])
                drawn_points = None if points is None else len(points)
                check(drawn_points == len(line["x"]),
                      f"chart {chart['title']!r}, line {line['name']!r}: "
                      f"{drawn_points} points for {len(line['x'])} values")
                lines_checked += 1
            for axis in ("x", "y"):
                ticks = list(svg.find_all("text", f"{axis}-tick"))
                check(len(ticks) >= 2, f"chart {chart['title']!r}: {len(ticks)} {axis} ticks")
                label = next(svg.find_all("text", f"{axis}-label")).all_text()
                check(label == chart[f"{axis}_label"], f"chart {chart['title']!r}: {axis} label "
                                                       f"{label!r}")
    else:
        check(not drawn and "No training run" in by_id(root, "charts").all_text(),
              "a page without training curves should say so")

    if failures:
        print("\n".join(failures[:20]))
        sys.exit(1)
    print(f"{path}: {len(grids)} heads of {rows} x {columns} {kind}, {cells_checked} cell titles, "
          f"{lines_checked} curves checked against the page's data")


if __name__ == "__main__":
    main(*sys.argv[1:5])
