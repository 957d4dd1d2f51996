#!/usr/bin/env python3
"""tests/examples/bert/bert_serve_in_chromium.py BINARY FIXTURE — the fill-mask page in a browser.

Starts `BINARY serve --bert FIXTURE` on 127.0.0.1 (any free port) and drives headless Chromium
(Debian's python3-selenium and chromium-driver, as tests/examples/serve/serve_in_chromium.py,
whose helpers it uses): the page is in fill-mask mode; a sentence with two [MASK]s, submitted
with top 3, shows one box per mask holding the API's pieces (the API's equal the offline
fill-mask's: tests/examples/bert/test_bert_serve.cpp); every map draws heads x queries x keys
cells; a sentence holding <script> and an <img onerror> is shown as text and runs nothing.
Exits 77 (CTest: skipped) when selenium or chromedriver is missing.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "serve"))
binary, fixture = sys.argv[1], sys.argv[2]
# Exits 77 itself when selenium, chromium or chromedriver is missing.
from serve_in_chromium import By, Select, browser, check_maps, fail, translate_in_page  # noqa: E402
from serve_process import Served, call  # noqa: E402

SENTENCE = "the [MASK] is [MASK]."
# Two sentences: the fixture reads at most 30 pieces, and its pieces are mostly letters.
HOSTILE = ["[MASK]<script>__pwned=1</script>", "[MASK]<img src=x onerror=__pwned=2>"]


def main():
    # --model is ignored when --bert is given.
    with Served(binary, "unused", "--bert", fixture) as server, \
            tempfile.TemporaryDirectory() as profile:
        status, answer = call(server.port, "POST", "/api/fill-mask",
                              {"text": SENTENCE, "top_k": 3})
        if status != 200:
            fail(f"POST /api/fill-mask: {status} {answer}")
        driver = browser(profile)
        try:
            driver.get(server.address)
            heading = driver.find_element(By.ID, "live-heading").text
            if "mask" not in heading.lower():
                fail(f"the page is not in fill-mask mode: its heading is {heading!r}")
            Select(driver.find_element(By.ID, "live-beam")).select_by_value("3")
            said = translate_in_page(driver, SENTENCE)
            if not said.startswith("filled in"):
                fail(f"the page says {said!r}, not that it filled the masks in")
            boxes = driver.find_elements(By.CSS_SELECTOR, "#alternatives .position")
            if len(boxes) != len(answer["masks"]):
                fail(f"{len(boxes)} boxes for {len(answer['masks'])} masks")
            for box, guesses in zip(boxes, answer["masks"]):
                shown = [p.text for p in box.find_elements(By.CSS_SELECTOR, ".choice .piece")]
                if shown != [g["piece"] for g in guesses]:
                    fail(f"a box shows {shown}, the API answered {guesses}")
            if driver.find_element(By.ID, "translation").text != answer["filled"]:
                fail("the filled-in sentence differs from the API's")
            checked = check_maps(driver, answer)
            for text in HOSTILE:
                said = translate_in_page(driver, text)
                if not said.startswith("filled in"):
                    fail(f"{text!r}: the page says {said!r}")
            if driver.execute_script("return window.__pwned || 0"):
                fail("a sentence's markup ran in the page")
            names = driver.execute_script(
                "return [...document.querySelectorAll('#sentence option')].map(o => o.textContent)")
            if not all(any(text in name for name in names) for text in HOSTILE):
                fail(f"the hostile sentence is not in the sentence picker as text: {names}")
        finally:
            driver.quit()
    print(f"fill-mask page: {len(answer['masks'])} mask boxes as the API's, {checked} maps drawn, "
          "markup in a sentence shown as text")


main()
