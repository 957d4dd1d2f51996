#!/usr/bin/env python3
"""tests/examples/gpt/gpt_serve_in_chromium.py BINARY WORK FIXTURE — the GPT playground in a browser.

Trains a tiny GPT into WORK/run (a few seconds), then for `BINARY serve --model WORK/run` and
`BINARY serve --gpt2 FIXTURE` (tests/fixtures/gpt2_tiny) drives headless Chromium (Debian's
python3-selenium and chromium-driver, with the helpers of tests/examples/serve/
serve_in_chromium.py): types a prompt, moves the temperature slider and sets top-k, top-p and the
seed; checks every bar of the four distributions against POST /api/next-token for the same
settings, and the drawn token against `BINARY sample --seed` with them; steps one token and checks
the text and the next draw against `sample`'s two tokens; checks the maps (heads x T x T cells)
and that hovering a token marks it in them; and that markup in a prompt is shown as text and runs
nothing. Exits 77 (CTest: skipped) when selenium or chromedriver is missing.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "serve"))
binary, work, fixture = sys.argv[1], sys.argv[2], sys.argv[3]
# Exits 77 itself when selenium, chromium or chromedriver is missing.
from serve_in_chromium import (By, WebDriverWait, browser, check_maps,  # noqa: E402
                               fail)
from serve_process import Served, call  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

PROMPT = "the cat sat"
SETTINGS = {"temperature": 0.8, "top_k": 5, "top_p": 0.9, "seed": 7}
# Each at most 16 GPT-2 tokens (the fixture's context).
HOSTILE = ["<script>__pwned=1</script>", "<svg onload=__pwned=2>"]


def train(directory):
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    text = os.path.join(directory, "text.txt")
    with open(text, "w") as out:
        for i in range(300):
            out.write(f"the cat {i % 7} sat on the mat {i % 5} and looked at the dog.\n")
    run = os.path.join(directory, "run")
    subprocess.run([binary, "--threads", "1", "train", "--context", "64", "--d-model", "16",
                    "--heads", "2", "--layers", "2", "--batch-size", "4", "--warmup", "10",
                    "--log-every", "5", "--eval-tokens", "512", "--text", text, "--out", run,
                    "--steps", "20"], check=True, capture_output=True, timeout=300)
    return run


def sampled(source, tokens):
    """What `sample` prints after the prompt for the SETTINGS (its last newline removed)."""
    done = subprocess.run(
        [binary, "sample", *source, "--temperature", str(SETTINGS["temperature"]),
         "--top-k", str(SETTINGS["top_k"]), "--top-p", str(SETTINGS["top_p"]),
         "--seed", str(SETTINGS["seed"]), "--max-new-tokens", str(tokens), PROMPT],
        check=True, capture_output=True, timeout=120)
    out = done.stdout.decode("utf-8", "replace")
    if not out.startswith(PROMPT) or not out.endswith("\n"):
        fail(f"sample printed {out!r}")
    return out[len(PROMPT):-1]


def ready_for(driver, request):
    """Waits until the page has drawn its answer to `request` (the status names it)."""
    wanted = json.dumps({"text": request["text"], **SETTINGS, "generated": request["generated"],
                         "step": len(request["generated"])}, separators=(",", ":"))
    WebDriverWait(driver, 30, poll_frequency=0.05).until(
        lambda d: d.find_element(By.ID, "play-status").get_attribute("data-ready") == wanted or
        "error" in d.find_element(By.ID, "play-status").get_attribute("class"))
    if "error" in driver.find_element(By.ID, "play-status").get_attribute("class"):
        fail("the page says " + driver.find_element(By.ID, "play-status").text)


def set_knobs(driver):
    """The prompt typed; the temperature slider moved with the arrow keys (0.05 a press); top-k,
    top-p and the seed typed."""
    box = driver.find_element(By.ID, "play-text")
    box.clear()
    box.send_keys(PROMPT)
    slider = driver.find_element(By.ID, "play-temperature")
    ActionChains(driver).click(slider).perform()  # a click moves it too: set it back to 1 first
    driver.execute_script("arguments[0].value = '1'", slider)
    for _ in range(round((1 - SETTINGS["temperature"]) / 0.05)):
        slider.send_keys(Keys.ARROW_LEFT)
    for element, value in (("play-top-k", SETTINGS["top_k"]), ("play-top-p", SETTINGS["top_p"]),
                           ("play-seed", SETTINGS["seed"])):
        field = driver.find_element(By.ID, element)
        field.send_keys(Keys.CONTROL, "a")
        field.send_keys(str(value))
    shown = driver.find_element(By.ID, "play-temperature-value").text
    if shown != f"{SETTINGS['temperature']:.2f}":
        fail(f"the slider reads {shown}, not {SETTINGS['temperature']:.2f}")


def check_bars(driver, answer):
    """Each stage's bars carry the API's probabilities for the API's candidates, in order."""
    for stage in answer["stages"]:
        rows = driver.find_elements(
            By.CSS_SELECTOR, f".stage[data-stage='{stage['name']}'] .bar-row")
        ids = [int(r.get_attribute("data-id")) for r in rows[:-1]]
        if ids != [c["id"] for c in answer["candidates"]]:
            fail(f"{stage['name']}: the bars are tokens {ids}, the API's {answer['candidates']}")
        shown = [float(r.get_attribute("data-probability")) for r in rows]
        for got, want in zip(shown, stage["probabilities"] + [stage["rest"]]):
            if abs(got - want) > 1e-12:
                fail(f"{stage['name']}: a bar of {got}, the API says {want}")
    cut = driver.find_elements(By.CSS_SELECTOR, ".stage[data-stage='top-k'] .cutoff")
    if SETTINGS["top_k"] < len(answer["candidates"]) and len(cut) != 1:
        fail("top-k's cut-off is not drawn")


def play(driver, server, source):
    request = {"text": PROMPT, **SETTINGS, "generated": [], "step": 0}
    driver.get(server.address)
    set_knobs(driver)
    ready_for(driver, request)
    status, answer = call(server.port, "POST", "/api/next-token", request)
    if status != 200:
        fail(f"POST /api/next-token: {status} {answer}")
    check_bars(driver, answer)
    first = int(driver.find_element(By.ID, "play-drawn").get_attribute("data-id"))
    two = sampled(source, 2)
    if first != answer["drawn"]["id"] or not two.startswith(answer["drawn"]["text"]):
        fail(f"drawn: the page {first}, the API {answer['drawn']}, sample {two!r}")
    # Step: the drawn token joins the text, and the next draw is sample's second token.
    driver.find_element(By.ID, "play-step").click()
    request = {**request, "generated": [first], "step": 1}
    ready_for(driver, request)
    chips = driver.find_elements(By.CSS_SELECTOR, "#play-tokens .token-chip")
    if chips[-1].text != answer["drawn"]["token"] or "generated" not in chips[-1].get_attribute(
            "class"):
        fail(f"after a step the last token is {chips[-1].text!r}, not {answer['drawn']['token']!r}")
    _, stepped = call(server.port, "POST", "/api/next-token", request)
    if answer["drawn"]["text"] + stepped["drawn"]["text"] != two:
        fail(f"two steps give {answer['drawn']['text'] + stepped['drawn']['text']!r}, "
             f"sample {two!r}")
    maps = check_maps(driver, stepped)
    ActionChains(driver).move_to_element(chips[0]).perform()
    if not driver.find_elements(By.CSS_SELECTOR, "#maps .query.hover[data-row='0']"):
        fail("hovering the first token does not mark it in the maps")
    for text in HOSTILE:
        box = driver.find_element(By.ID, "play-text")
        box.clear()
        box.send_keys(text)
        ready_for(driver, {**request, "text": text, "generated": []})
        shown = driver.find_element(By.ID, "play-tokens").text.replace("\u2423", " ")
        if text not in shown.replace("\n", ""):
            fail(f"the prompt {text!r} is shown as {shown!r}")
    if driver.execute_script("return window.__pwned || 0"):
        fail("a prompt's markup ran in the page")
    return maps


def main():
    run = train(work)
    for source in (["--model", run], ["--gpt2", fixture]):
        server = Served(binary, run)
        server.command = [binary, "serve", *source, "--host", "127.0.0.1", "--port", "0"]
        with server, tempfile.TemporaryDirectory() as profile:
            driver = browser(profile)
            try:
                maps = play(driver, server, source)
            finally:
                driver.quit()
        print(f"{source[0]}: the bars are the API's, the drawn and stepped tokens are sample's, "
              f"{maps} maps drawn, markup in a prompt shown as text")


main()
