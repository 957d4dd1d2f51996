#!/usr/bin/python3
"""bench/serve_load.py — `atencion-translate serve` under load, next to the batched stdin
`translate` on the same sentences (docs/17-serving.md#under-load).

Every request goes to 127.0.0.1 only, and the run is bounded (--seconds, --rss-requests).

  1. offline: `translate --model M` reads the sentences on stdin (length-sorted batches): its
     rate in sentences per second is the reference;
  2. page load to first translation: GET / (the whole page), then POST /api/translate of a short
     sentence, on a fresh connection each, as a browser opening the page would;
  3. load: --clients keep-alive clients, each on one connection, POST sentences drawn at random
     for --seconds; latency p50 / p90 / p99, errors (any status but 200, a broken connection, or
     an answer that differs from the offline translation) and throughput, with "details": false
     (the text only, as translate prints) and then, shorter, with the full answer (maps and
     alternatives: what the page asks for);
  4. memory: the server's resident set every 1,000 requests over --rss-requests requests.

Beside translate's rate on the whole input, its rate per CPU second on groups of --clients
sentences, each group one call: what --clients clients can have in flight at once, so the best a
server that decodes a batch at a time can sort and batch (docs/17-serving.md#under-load).

With each load it prints the CPU seconds the server and this script (the load generator: its
clients on one asyncio loop, HTTP and JSON) used, from /proc and os.times(): on a machine whose cores the two
share, the generator's share is CPU the server did not have, which `translate` on stdin had.

The sentences: the Spanish side of the shipped pairs (examples/translate/data/spa-eng.tsv), a
seeded sample of --sample of them, so their lengths follow the corpus's mix.

    /usr/bin/python3 bench/serve_load.py --binary build/examples/translate/atencion-translate \\
        --model runs/spa-eng                      # 64 clients, 30 s, 10,000 requests for RSS
    /usr/bin/python3 bench/serve_load.py --binary ... --model ... --seconds 5 --rss-requests 2000
"""
import argparse
import asyncio
import http.client
import json
import os
import random
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "examples", "serve"))
from serve_process import Served  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def read_sentences(path, sample, seed):
    with open(path, encoding="utf-8") as pairs:
        spanish = [line.split("\t")[0] for line in pairs if "\t" in line]
    random.Random(seed).shuffle(spanish)
    return spanish[:sample]


def offline(binary, model, sentences, beam):
    """translate's outputs, and its rate without the start (loading the model: the time of a
    run on one sentence is taken off); each time the best of three runs, as a shared machine
    only ever slows a run down."""
    def run(lines):
        started, cpu = time.monotonic(), os.times()
        done = subprocess.run([binary, "translate", "--model", model, "--beam", str(beam)],
                              input="".join(s + "\n" for s in lines), capture_output=True,
                              text=True, check=True)
        after = os.times()
        cpu_seconds = (after.children_user + after.children_system - cpu.children_user -
                       cpu.children_system)
        return done.stdout.split("\n")[:len(lines)], time.monotonic() - started, cpu_seconds
    start = [run(sentences[:1]) for _ in range(3)]
    runs = [run(sentences) for _ in range(3)]
    outputs, seconds = runs[0][0], min(t for _, t, _ in runs)
    cpu = min(c for _, _, c in runs) - min(c for _, _, c in start)
    return (outputs, (len(sentences) - 1) / max(seconds - min(t for _, t, _ in start), 1e-6),
            (len(sentences) - 1) / max(cpu, 1e-6))


def in_flight_groups(binary, model, sentences, clients, beam):
    """translate's sentences per CPU second on what `clients` clients can have in flight: the
    sentences cut into groups of `clients`, each group one translate call (sorted by length and
    decoded in batches as translate does); the CPU of a call on one sentence (the start) is taken
    off each. A server that decodes a batch at a time, with every client waiting in it, does at
    best this well per CPU second; `translate` on the whole input sorts all of it."""
    def cpu_of(lines):
        before = os.times()
        subprocess.run([binary, "translate", "--model", model, "--beam", str(beam)],
                       input="".join(s + "\n" for s in lines), capture_output=True, text=True,
                       check=True)
        after = os.times()
        return (after.children_user + after.children_system - before.children_user -
                before.children_system)
    start = min(cpu_of(sentences[:1]) for _ in range(3))
    groups = [sentences[g:g + clients] for g in range(0, len(sentences), clients)]
    cpu = sum(max(cpu_of(group) - start, 1e-6) for group in groups)
    return len(sentences) / cpu


def servable(port, sentences):
    """The sentences the model takes (a text over its positions is refused, 400)."""
    kept = []
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    for sentence in sentences:
        connection.request("POST", "/api/translate",
                           body=json.dumps({"text": sentence, "details": False}),
                           headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        response.read()
        if response.status == 200:
            kept.append(sentence)
    connection.close()
    return kept


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


class Client:
    """One keep-alive connection posting sentences until the deadline or the request budget.

    The clients share one thread and one event loop (asyncio), each writing its request and
    reading the answer (status line, headers, Content-Length bytes) on a plain socket stream:
    64 threads of http.client spent more of the two cores on switching and parsing than on the
    requests, and what the generator spends the server does not have (--clients share the
    machine with it)."""

    def __init__(self, port, sentences, expected, deadline, budget, details, seed):
        self.port, self.sentences, self.expected = port, sentences, expected
        self.deadline, self.budget, self.details = deadline, budget, details
        self.random = random.Random(seed)
        self.latencies, self.errors, self.mismatches = [], [], 0

    def request_bytes(self, text):
        body = json.dumps({"text": text, "details": self.details}).encode()
        return (f"POST /api/translate HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
                ).encode() + body

    async def run(self):
        connection = None
        while time.monotonic() < self.deadline and self.budget.take():
            i = self.random.randrange(len(self.sentences))
            request = self.request_bytes(self.sentences[i])
            started = time.monotonic()
            try:
                async with asyncio.timeout(60):
                    if connection is None:
                        connection = await asyncio.open_connection("127.0.0.1", self.port)
                    connection[1].write(request)
                    status, answer, close = await read_response(connection[0])
                self.latencies.append(time.monotonic() - started)
                if status != 200:
                    self.errors.append(f"HTTP {status}: {answer[:100]!r}")
                elif json.loads(answer)["translation"] != self.expected[i]:
                    self.mismatches += 1
            except (OSError, TimeoutError, ValueError, asyncio.IncompleteReadError) as error:
                self.errors.append(f"{type(error).__name__}: {error}")
                close = True
            if close and connection is not None:
                connection[1].close()
                connection = None
        if connection is not None:
            connection[1].close()


async def read_response(reader):
    """(status, body, whether the server closes): an HTTP/1.1 answer with a Content-Length."""
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
    status = int(head[0].split(" ", 2)[1])
    headers = {name.strip().lower(): value.strip()
               for name, _, value in (line.partition(":") for line in head[1:] if line)}
    if "content-length" not in headers:
        raise ValueError(f"an answer without Content-Length: {head[0]}")
    body = await reader.readexactly(int(headers["content-length"]))
    return status, body, headers.get("connection", "").lower() == "close"


class Budget:
    def __init__(self, count):
        self.left = count

    def take(self):
        if self.left is None:
            return True
        if self.left == 0:
            return False
        self.left -= 1
        return True


def cpu_seconds(pid):
    """(the process `pid`'s user + system CPU seconds, this script's own)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    mine = os.times()
    return (int(fields[11]) + int(fields[12])) / ticks, mine.user + mine.system


def load(port, sentences, expected, clients, seconds, details, budget=None, on_progress=None,
         server_pid=None):
    cpu_before = cpu_seconds(server_pid) if server_pid else None
    deadline = time.monotonic() + seconds
    shared = Budget(budget)
    workers = [Client(port, sentences, expected, deadline, shared, details, seed)
               for seed in range(clients)]

    async def all_clients():
        tasks = [asyncio.create_task(worker.run()) for worker in workers]
        while not all(task.done() for task in tasks):
            await asyncio.wait(tasks, timeout=0.2)
            if on_progress:
                on_progress(sum(len(w.latencies) for w in workers))
        for task in tasks:
            task.result()
    started = time.monotonic()
    asyncio.run(all_clients())
    elapsed = time.monotonic() - started
    latencies = [t for w in workers for t in w.latencies]
    errors = [e for w in workers for e in w.errors]
    mismatches = sum(w.mismatches for w in workers)
    cpu = None
    if cpu_before:
        cpu_after = cpu_seconds(server_pid)
        cpu = (cpu_after[0] - cpu_before[0], cpu_after[1] - cpu_before[1], elapsed)
    return {"requests": len(latencies), "rate": len(latencies) / elapsed, "cpu": cpu,
            "p50": percentile(latencies, 0.50), "p90": percentile(latencies, 0.90),
            "p99": percentile(latencies, 0.99), "errors": errors, "mismatches": mismatches}


def first_translation(port):
    started = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", "/")
    page = connection.getresponse().read()
    connection.close()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("POST", "/api/translate", body=json.dumps({"text": "Hola."}),
                       headers={"Content-Type": "application/json"})
    status = connection.getresponse().status
    connection.close()
    return time.monotonic() - started, len(page), status


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--pairs", default=os.path.join(HERE, "..", "examples", "translate",
                                                        "data", "spa-eng.tsv"))
    parser.add_argument("--sample", type=int, default=1000)
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--full-seconds", type=float, default=None,
                        help="seconds of load with full answers (default: a third of --seconds)")
    parser.add_argument("--rss-requests", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    sampled = read_sentences(args.pairs, args.sample, args.seed)
    with Served(args.binary, args.model, "--queue", "1024") as server:
        sentences = servable(server.port, sampled)
    expected, offline_rate, offline_cpu_rate = offline(args.binary, args.model, sentences, 1)
    lengths = [len(s) for s in sentences]
    print(f"{len(sentences)} sentences of the pairs ({len(sampled) - len(sentences)} of "
          f"{len(sampled)} left out: over the model's positions), {min(lengths)}-{max(lengths)} "
          f"characters (median {statistics.median(lengths):.0f}); CPU: {os.cpu_count()} cores")
    print(f"offline: translate on stdin, {offline_rate:.1f} sentences/s (start-up taken off), "
          f"{offline_cpu_rate:.1f} sentences per CPU second")
    group_rate = in_flight_groups(args.binary, args.model, sentences, args.clients, 1)
    print(f"offline in groups of {args.clients} (what {args.clients} clients have in flight, "
          f"one translate call each): {group_rate:.1f} sentences per CPU second "
          f"({group_rate / offline_cpu_rate:.2f}x of translate on the whole input)")
    with Served(args.binary, args.model, "--queue", "1024") as server:
        seconds, page_bytes, status = first_translation(server.port)
        print(f"page load to first translation: {1000 * seconds:.0f} ms "
              f"(page {page_bytes / 1024:.0f} KiB, then POST: HTTP {status})")
        results = []
        for details, seconds in ((False, args.seconds),
                                 (True, args.full_seconds or args.seconds / 3)):
            result = load(server.port, sentences, expected, args.clients, seconds, details,
                          server_pid=server.process.pid)
            results.append((details, seconds, result))
        rss, rss_marks = [], list(range(0, args.rss_requests + 1, 1000))

        def sample_rss(done):  # the resident set as each 1,000th request is passed
            while rss_marks and done >= rss_marks[0]:
                rss.append((rss_marks.pop(0), server.rss_kib()[0] / 1024))
        load(server.port, sentences, expected, min(args.clients, 16), 10 ** 6, False,
             budget=args.rss_requests, on_progress=sample_rss)
        sample_rss(args.rss_requests)
        peak = server.rss_kib()[1] / 1024
    print()
    print("| answers | clients | seconds | requests | req/s | vs offline | p50 ms | p90 ms | "
          "p99 ms | errors | differ from offline |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    failed = False
    for details, seconds, r in results:
        print(f"| {'full (maps, alternatives)' if details else 'text only'} | {args.clients} | "
              f"{seconds:.0f} | {r['requests']} | {r['rate']:.1f} | "
              f"{r['rate'] / offline_rate:.2f}x | {1000 * r['p50']:.0f} | {1000 * r['p90']:.0f} | "
              f"{1000 * r['p99']:.0f} | {len(r['errors'])} | {r['mismatches']} |")
        failed = failed or r["errors"] or r["mismatches"]
        for error in r["errors"][:5]:
            print(f"  error: {error}")
    print()
    for details, seconds, r in results:
        server_cpu, generator_cpu, elapsed = r["cpu"]
        print(f"CPU during the {'full' if details else 'text-only'} load ({elapsed:.1f} s on "
              f"{os.cpu_count()} cores): server {server_cpu:.1f} s, load generator "
              f"{generator_cpu:.1f} s ({100 * generator_cpu / max(server_cpu + generator_cpu, 1e-9):.0f}% "
              f"of the two); the server's rate per CPU second it had: "
              f"{r['requests'] / max(server_cpu, 1e-9):.1f} requests "
              f"({r['requests'] / max(server_cpu, 1e-9) / offline_cpu_rate:.2f}x of translate's, "
              f"{r['requests'] / max(server_cpu, 1e-9) / group_rate:.2f}x of translate's in "
              f"groups of {args.clients})")
    print()
    print("resident set (MiB) after n requests: " +
          ", ".join(f"{n}: {mib:.1f}" for n, mib in rss) + f"; peak {peak:.1f}")
    sys.exit(1 if failed else 0)


main()
