# tests/examples/serve/serve_process.py — what the serve tests share: start
# `atencion-translate serve --port 0` on the loopback address, read the port it prints, and
# stop it; small HTTP calls over the standard library (loopback only).
import http.client
import json
import re
import subprocess
import time


class Served:
    """`atencion-translate serve --model MODEL --port 0` while the with-block runs."""

    def __init__(self, binary, model, *extra):
        self.command = [binary, "serve", "--model", model, "--host", "127.0.0.1", "--port", "0",
                        *extra]

    def __enter__(self):
        self.process = subprocess.Popen(self.command, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
        line = self.process.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if not found:
            self.process.kill()
            raise SystemExit(f"serve did not print its address: {line!r}")
        self.port = int(found.group(1))
        self.address = f"http://127.0.0.1:{self.port}/"
        return self

    def running(self):
        return self.process.poll() is None

    def rss_kib(self):
        """(current, peak) resident memory of the server, from /proc."""
        fields = {}
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                name, _, value = line.partition(":")
                fields[name] = value.strip()
        return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])

    def __exit__(self, *error):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                raise SystemExit("serve did not stop within 20 s of SIGTERM")
        return False


def call(port, method, path, body=None, timeout=30):
    """(status, parsed JSON or text) of one request on a fresh connection."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        payload = json.dumps(body) if isinstance(body, (dict, list)) else body
        headers = {"Content-Type": "application/json"} if payload is not None else {}
        connection.request(method, path, body=payload, headers=headers)
        response = connection.getresponse()
        text = response.read().decode("utf-8")
        kind = response.getheader("Content-Type", "")
        return response.status, json.loads(text) if kind.startswith("application/json") else text
    finally:
        connection.close()


def translate_offline(binary, model, sentences, beam=1):
    """The translations `atencion-translate translate` prints for these sentences."""
    done = subprocess.run([binary, "translate", "--model", model, "--beam", str(beam)],
                          input="".join(s + "\n" for s in sentences), capture_output=True,
                          text=True, check=True, timeout=120)
    return done.stdout.split("\n")[:len(sentences)]


def wait_until(condition, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise SystemExit(f"timed out after {seconds} s waiting for {what}")
