#!/usr/bin/env python3
"""tests/examples/serve/serve_in_chromium.py BINARY MODEL — the live page in a real browser.

Starts `BINARY serve --model MODEL` on 127.0.0.1 (any free port) and drives headless Chromium
with Debian's python3-selenium and chromium-driver: types a sentence, submits, waits for the
translation, and checks that it is the offline `translate`'s, that every attention map draws
heads x queries x keys cells (the counts from the API's answer for the same sentence), that each
output piece shows its five alternatives, that the head view's hover keeps only the hovered
piece's lines and its head chips hide and show a head's lines, and that a sentence holding <script> and an <img onerror> is shown as text and
runs nothing. Exits 77 (CTest: skipped) when selenium or chromedriver is missing.
"""
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from serve_process import Served, call, translate_offline  # noqa: E402

try:
    from selenium import webdriver
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait
except ImportError:
    print("python3-selenium is not installed (tools/packages.sh): the live page's browser test "
          "is skipped")
    sys.exit(77)
DRIVER = shutil.which("chromedriver")
if DRIVER is None or shutil.which("chromium") is None:
    print("chromium or chromium-driver is not installed (tools/packages.sh): the live page's "
          "browser test is skipped")
    sys.exit(77)

binary, model = sys.argv[1], sys.argv[2]
SENTENCE = "El gato come pan."
HOSTILE = 'El gato <script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'


def browser(profile):
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
                 "--window-size=1400,1000"):
        options.add_argument(flag)
    options.binary_location = shutil.which("chromium")
    service = webdriver.ChromeService(executable_path=DRIVER) if hasattr(
        webdriver, "ChromeService") else webdriver.chrome.service.Service(DRIVER)
    return webdriver.Chrome(service=service, options=options)


def fail(message):
    raise SystemExit("FAIL: " + message)


def translate_in_page(driver, text):
    """Types `text`, submits, and returns the status line once the answer is drawn."""
    box = driver.find_element(By.ID, "live-text")
    box.clear()
    box.send_keys(text)
    count = driver.execute_script("return data.sentences.length")
    driver.find_element(By.ID, "live-submit").click()
    WebDriverWait(driver, 30, poll_frequency=0.05).until(
        lambda d: d.execute_script("return data.sentences.length") == count + 1 or
        "error" in d.find_element(By.ID, "live-status").get_attribute("class"))
    return driver.find_element(By.ID, "live-status").text


def check_maps(driver, answer):
    """Every kind and layer, all heads: heads x queries x keys cells, from the API's answer."""
    checked = 0
    for map_data in answer["sentence"]["maps"]:
        Select(driver.find_element(By.ID, "kind")).select_by_value(map_data["kind"])
        Select(driver.find_element(By.ID, "layer")).select_by_value(str(map_data["layer"]))
        Select(driver.find_element(By.ID, "head")).select_by_value("all")
        Select(driver.find_element(By.ID, "view")).select_by_value("grid")
        heads = len(map_data["heads"])
        expected = heads * len(map_data["queries"]) * len(map_data["keys"])
        cells = driver.find_elements(By.CSS_SELECTOR, "#maps svg.heatmap rect.cell")
        panels = driver.find_elements(By.CSS_SELECTOR, "#maps svg.heatmap")
        if len(cells) != expected or len(panels) != heads:
            fail(f"{map_data['kind']} layer {map_data['layer']}: {len(panels)} panels and "
                 f"{len(cells)} cells drawn, expected {heads} and {expected}")
        checked += 1
    return checked


def check_head_view(driver, answer):
    """Lines view of the cross-attention, one head: hovering query 1 leaves only its lines."""
    Select(driver.find_element(By.ID, "kind")).select_by_value("encoder-decoder attention")
    Select(driver.find_element(By.ID, "layer")).select_by_value("0")
    Select(driver.find_element(By.ID, "head")).select_by_value("0")
    Select(driver.find_element(By.ID, "view")).select_by_value("lines")
    query = driver.find_element(By.CSS_SELECTOR, "#maps svg.lines text.query[data-row='1']")
    ActionChains(driver).move_to_element(query).perform()
    shown = driver.execute_script(
        "return [...document.querySelectorAll('#maps line.link')]"
        ".filter(l => l.style.display !== 'none').map(l => l.dataset.row)")
    if not shown or set(shown) != {"1"}:
        fail(f"head view: hovering query 1 shows the lines of rows {sorted(set(shown))}")
    if "attends to" not in driver.find_element(By.ID, "readout").text:
        fail("head view: the readout does not say what the hovered piece attends to")
    # All heads, one colour each; a click on head 1's chip hides its lines, another shows them.
    Select(driver.find_element(By.ID, "head")).select_by_value("all")
    count = lambda head: len(driver.find_elements(By.CSS_SELECTOR,
                                                  f"#maps line.link[data-head='{head}']"))
    if count(0) == 0 or count(1) == 0:
        fail("head view: all heads drawn, but head 0 or head 1 has no line")
    driver.find_element(By.CSS_SELECTOR, ".head-chip[data-head='1']").click()
    if count(1) != 0 or count(0) == 0:
        fail("head view: hiding head 1 left its lines, or took head 0's")
    driver.find_element(By.CSS_SELECTOR, ".head-chip[data-head='1']").click()
    if count(1) == 0:
        fail("head view: head 1 shown again has no line")


def main():
    with Served(binary, model) as server, tempfile.TemporaryDirectory() as profile:
        expected = translate_offline(binary, model, [SENTENCE])[0]
        status, answer = call(server.port, "POST", "/api/translate", {"text": SENTENCE})
        if status != 200:
            fail(f"POST /api/translate: {status} {answer}")
        driver = browser(profile)
        try:
            started = time.monotonic()
            driver.get(server.address)
            if driver.execute_script("return document.querySelectorAll("
                                     "'script[src], link[href], img[src], iframe').length"):
                fail("the page loads something besides itself")
            loaded = driver.execute_script(
                "return performance.getEntriesByType('navigation')[0].loadEventEnd") / 1000
            # Every text the translation box shows on the way, to see it grow from the stream.
            driver.execute_script(
                "window.__shown = [];"
                "new MutationObserver(() => window.__shown.push("
                "document.getElementById('translation').textContent))"
                ".observe(document.getElementById('translation'), "
                "{childList: true, characterData: true, subtree: true});")
            first_status = translate_in_page(driver, SENTENCE)
            first = time.monotonic() - started
            asked = driver.execute_script(
                "return performance.getEntriesByType('resource').map(e => e.name)")
            if not any(name.endswith("/api/translate/stream") for name in asked):
                fail(f"the page did not ask the stream for its translation: {asked}")
            shown_on_the_way = driver.execute_script("return window.__shown")
            if not shown_on_the_way or shown_on_the_way[-1] != (
                    expected or "(empty: the model ends the sentence at once)"):
                fail(f"the translation box showed {shown_on_the_way}, ending not in {expected!r}")
            shown = driver.find_element(By.ID, "translation").text
            if shown != (expected or "(empty: the model ends the sentence at once)"):
                fail(f"the page shows {shown!r}, offline translate gives {expected!r}")
            positions = driver.find_elements(By.CSS_SELECTOR, "#alternatives .position")
            if len(positions) != len(answer["output_pieces"]):
                fail(f"{len(positions)} output boxes for {len(answer['output_pieces'])} pieces")
            for box in positions:
                if len(box.find_elements(By.CSS_SELECTOR, ".choice")) != 5:
                    fail("an output piece without its five alternatives")
            maps = check_maps(driver, answer)
            check_head_view(driver, answer)

            # User text is data, never markup.
            page_scripts = len(driver.find_elements(By.TAG_NAME, "script"))
            status_line = translate_in_page(driver, HOSTILE)
            if "translated" not in status_line:
                fail(f"the <script> sentence was not translated: {status_line}")
            if driver.execute_script("return window.__pwned") is not None:
                fail("the sentence's <script> or onerror ran")
            scripts = len(driver.find_elements(By.TAG_NAME, "script"))
            if driver.find_elements(By.TAG_NAME, "img") or scripts != page_scripts:
                fail("the sentence's markup became elements")
            option = Select(driver.find_element(By.ID, "sentence")).first_selected_option.text
            if "<script>window.__pwned = 1</script>" not in option:
                fail(f"the sentence is not shown as text in the picker: {option!r}")
            driver.find_element(By.ID, "live-text").clear()
            status_line = translate_in_page(driver, "gato " * 400)
            if "not translated" not in status_line or "at most" not in status_line:
                fail(f"a text over the model's positions: the page says {status_line!r}")
        finally:
            driver.quit()
        if not server.running():
            fail("the server stopped")
    print(f"ok: live page translated {SENTENCE!r} as {expected!r}; {maps} maps checked cell by "
          f"cell; head view hover; <script> shown as text; page load to first translation "
          f"{first:.2f} s, typing by selenium included (page loaded in {loaded:.2f} s; the "
          f"page says: {first_status}; the box showed {len(shown_on_the_way)} texts on the way)")


if __name__ == "__main__":  # tests/examples/bert/bert_serve_in_chromium.py imports it
    main()
