#!/usr/bin/python3
"""Checks the metrics and trace files of one run of observability_program.

    check_observability.py --metrics M.jsonl --trace T.json --records N --epochs E
                           --ranks R --threads T

Metrics: valid JSON lines with the keys of docs/design/observability.md and sane values (the
rotation loop's records sum to the dataset size, times >= 0, per-worker lists complete,
report_metric lines with their steps). Trace: valid trace-event JSON, one track per worker,
complete events that never overlap on one track (so they nest properly). Exit 1 with one
line per failure.
"""
import argparse
import json
import sys

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
    return condition


def check_metrics(path, args):
    lines = []
    with open(path, encoding="utf-8") as handle:
        for number, text in enumerate(handle, 1):
            try:
                lines.append(json.loads(text))
            except json.JSONDecodeError as error:
                check(False, f"{path}:{number}: not JSON: {error.msg}")
                return
    if not check(lines and lines[0].get("kind") == "run", f"{path}: first line is not a run line"):
        return
    run = lines[0]
    for key in ("program", "label", "ranks", "threads", "workers"):
        check(key in run, f"{path}:1: run line lacks {key!r}")
    check(run.get("ranks") == args.ranks and run.get("threads") == args.threads,
          f"{path}:1: ranks/threads {run.get('ranks')}/{run.get('threads')}")
    check(run.get("workers") == args.ranks * args.threads, f"{path}:1: workers {run.get('workers')}")
    loops = [l for l in lines if l.get("kind") == "loop"]
    metrics = [l for l in lines if l.get("kind") == "metric"]
    check(len(loops) + len(metrics) + 1 == len(lines), f"{path}: a line of unknown kind")
    last_t = 0.0
    for number, line in enumerate(lines[1:], 2):
        t = line.get("t")
        check(isinstance(t, (int, float)) and t >= last_t, f"{path}:{number}: t {t} goes back")
        last_t = t if isinstance(t, (int, float)) else last_t
    loop_keys = ("loop", "plan", "execution", "t", "seconds", "records", "records_per_s",
                 "bytes_moved", "workers")
    worker_keys = ("worker", "rank", "thread", "compute_s", "comm_s", "wait_s", "layout_s",
                   "records")
    for line in loops:
        where = f"{path}: loop {line.get('loop')} execution {line.get('execution')}"
        if not all(check(k in line, f"{where}: lacks {k!r}") for k in loop_keys):
            continue
        check(line["seconds"] >= 0, f"{where}: seconds {line['seconds']}")
        if line["seconds"] > 0:
            rate = line["records"] / line["seconds"]
            check(abs(line["records_per_s"] - rate) <= 1e-4 * rate + 1,
                  f"{where}: records_per_s {line['records_per_s']} != {rate}")
        check(line["bytes_moved"] >= 0, f"{where}: bytes_moved {line['bytes_moved']}")
        for w in line["workers"]:
            if all(check(k in w, f"{where}: worker lacks {k!r}") for k in worker_keys):
                for k in ("compute_s", "comm_s", "wait_s", "layout_s"):
                    check(w[k] >= 0, f"{where}: worker {w['worker']} {k} {w[k]}")
                total = sum(w[k] for k in ("compute_s", "comm_s", "wait_s", "layout_s"))
                check(total <= line["seconds"] + 1e-3,
                      f"{where}: worker {w['worker']} times add to {total} > {line['seconds']} s")
                check(0 <= w["rank"] < args.ranks and 0 <= w["thread"] < args.threads,
                      f"{where}: worker rank/thread {w['rank']}/{w['thread']}")
        check(sorted(w.get("worker") for w in line["workers"]) == list(range(len(line["workers"]))),
              f"{where}: worker numbers")
    by_loop = {}
    for line in loops:
        by_loop.setdefault(line.get("loop"), []).append(line)
    rotation = by_loop.get("observability_program.cpp:40", [])
    check(len(rotation) == args.epochs, f"{path}: {len(rotation)} rotation executions")
    check([l.get("execution") for l in rotation] == list(range(1, args.epochs + 1)),
          f"{path}: rotation execution numbers")
    for line in rotation:
        where = f"{path}: rotation execution {line.get('execution')}"
        check(line.get("plan") == "rotation", f"{where}: plan {line.get('plan')}")
        check(line.get("records") == args.records, f"{where}: records {line.get('records')}")
        check(sum(w.get("records", 0) for w in line.get("workers", [])) == args.records,
              f"{where}: worker records do not sum to {args.records}")
        check(len(line.get("workers", [])) == args.ranks * args.threads, f"{where}: worker count")
        check((line.get("bytes_moved", 0) > 0) == (args.ranks > 1),
              f"{where}: bytes_moved {line.get('bytes_moved')} with {args.ranks} ranks")
        check(all(w.get("compute_s", 0) > 0 for w in line.get("workers", [])),
              f"{where}: a worker without compute time")
    serial = by_loop.get("observability_program.cpp:60", [])
    if check(len(serial) == 1, f"{path}: {len(serial)} serial-loop lines"):
        line = serial[0]
        check(line.get("plan") == "serial" and line.get("redundant") is True,
              f"{path}: serial loop plan {line.get('plan')} redundant {line.get('redundant')}")
        check(line.get("records") == args.records, f"{path}: serial loop records {line.get('records')}")
        check(len(line.get("workers", [])) == args.ranks, f"{path}: serial loop worker count")
    points = by_loop.get("observability_program.cpp:70", [])
    if check(len(points) == 1, f"{path}: {len(points)} index-space loop lines"):
        check(points[0].get("records") == 300, f"{path}: index loop records {points[0].get('records')}")
        check(sum(w.get("records", 0) for w in points[0].get("workers", [])) == 300,
              f"{path}: index loop worker records")
    rmse = [m for m in metrics if m.get("name") == "train_rmse"]
    check([m.get("step") for m in rmse] == list(range(1, args.epochs + 1)),
          f"{path}: train_rmse steps {[m.get('step') for m in rmse]}")
    check(all(isinstance(m.get("value"), float) and 0 < m["value"] < 10 for m in rmse),
          f"{path}: train_rmse values {[m.get('value') for m in rmse]}")
    check([m.get("step") for m in metrics if m.get("name") == "w_norm"] == [1, 2],
          f"{path}: w_norm steps (automatic numbering)")


def check_trace(path, args):
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except json.JSONDecodeError as error:
        check(False, f"{path}:{error.lineno}: not JSON: {error.msg}")
        return
    events = document.get("traceEvents") if isinstance(document, dict) else None
    if not check(isinstance(events, list), f"{path}: no traceEvents list"):
        return
    spans = [e for e in events if e.get("ph") == "X"]
    names = {(e.get("pid"), e.get("tid")) for e in events if e.get("name") == "thread_name"}
    check(names == {(r, t) for r in range(args.ranks) for t in range(args.threads)},
          f"{path}: thread_name tracks {sorted(names)}")
    tracks = {}
    for e in spans:
        ok = all(check(k in e, f"{path}: event lacks {k!r}: {e}") for k in ("name", "ts", "dur", "pid", "tid"))
        if not ok:
            continue
        check(e["name"] in ("compute", "send", "recv", "wait", "sync", "layout",
                                 "merge"), f"{path}: name {e['name']}")
        check(e["dur"] >= 0 and e["ts"] >= 0, f"{path}: negative time {e}")
        check(0 <= e["pid"] < args.ranks and 0 <= e["tid"] < args.threads, f"{path}: track {e}")
        if e["name"] == "compute":
            check(isinstance(e.get("args", {}).get("block"), int), f"{path}: compute without block")
        tracks.setdefault((e["pid"], e["tid"]), []).append(
            (round(e["ts"] * 1000), round((e["ts"] + e["dur"]) * 1000), e["name"]))
    check(set(tracks) == {(r, t) for r in range(args.ranks) for t in range(args.threads)},
          f"{path}: tracks with events {sorted(tracks)}")
    for track, items in tracks.items():
        # Rotor's spans are leaves: on one track they follow each other without overlapping
        # (which also makes them nest properly for trace viewers)
        items.sort(key=lambda x: (x[0], x[1]))
        for before, after in zip(items, items[1:]):
            if after[0] < before[1]:
                check(False, f"{path}: track {track}: {after[2]} at {after[0]} ns starts inside "
                             f"{before[2]} [{before[0]}, {before[1]}] ns")
                break
        computes = sum(1 for item in items if item[2] == "compute")
        check(computes >= args.epochs, f"{path}: track {track}: {computes} compute events")
    if args.ranks > 1:
        check(any(e["name"] == "send" and e.get("args", {}).get("bytes", 0) > 0 for e in spans),
              f"{path}: no send with bytes at {args.ranks} ranks")


def main():
    parser = argparse.ArgumentParser()
    for name in ("--metrics", "--trace"):
        parser.add_argument(name, required=True)
    for name in ("--records", "--epochs", "--ranks", "--threads"):
        parser.add_argument(name, type=int, required=True)
    args = parser.parse_args()
    check_metrics(args.metrics, args)
    check_trace(args.trace, args)
    for failure in failures:
        print(f"FAIL: {failure}", file=sys.stderr)
    if not failures:
        print("observability files: all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
