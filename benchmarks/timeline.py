"""A load benchmark's per-second timeline: what the machine and PostgreSQL were doing each second, beside the saves
sent in it, so a burst of slow saves can be traced to its cause (a vacuum, a checkpoint, a process busy elsewhere).

Sampled once a second from /proc (each named process tree's CPU, the machine's) and from PostgreSQL's statistics
views (the autovacuum workers and what they are on, checkpoints, the log written, backends waiting on a lock); the
whole timeline is written as CSV and the slowest seconds are printed with what was going on."""

from __future__ import annotations

import csv
import os
import threading
import time
from pathlib import Path

import numpy as np

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")

ACTIVITY = """
SELECT
  (SELECT coalesce(string_agg(regexp_replace(query, '^autovacuum: ', ''), ' | '), '')
     FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'),
  (SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'),
  (SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND backend_type = 'client backend') - 1,
  (SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter),
  (SELECT buffers_checkpoint + buffers_clean + buffers_backend FROM pg_stat_bgwriter),
  pg_current_wal_lsn()::text
"""


class Timeline:
    """Samples once a second on its own thread (its own database connection) until `stop`."""

    def __init__(self, parts: dict[str, int], cpu_of):
        self.parts, self.cpu_of = parts, cpu_of  # cpu_of(pid) -> seconds of CPU of the process and its children
        self.rows: list[dict] = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> Timeline:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(timeout=5)

    def _machine(self) -> float:
        ticks = [int(field) for field in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
        return (sum(ticks[:3]) + sum(ticks[5:7])) / CLOCK_TICKS

    def _run(self) -> None:
        from django.db import connection

        from config import sql

        try:
            previous = None
            while not self.stopping.is_set():
                now = time.perf_counter()
                cpu = {name: self.cpu_of(pid) for name, pid in self.parts.items()}
                vacuums, locked, active, checkpoints, buffers, lsn = sql.fetch(ACTIVITY, [])[0]
                sample = {"at": now, "machine": self._machine(), **cpu, "checkpoints": checkpoints,
                          "buffers": buffers, "lsn": lsn}  # fmt: skip
                if previous is not None:
                    span = now - previous["at"]
                    ((wal,),) = sql.fetch("SELECT pg_wal_lsn_diff(%s, %s)", [lsn, previous["lsn"]])
                    row = {"at": now, "busy": (sample["machine"] - previous["machine"]) / span}
                    row.update({f"cpu {name}": (sample[name] - previous[name]) / span for name in self.parts})
                    row.update(autovacuum=vacuums, waiting_on_locks=locked, active_queries=active,
                               checkpoint=sample["checkpoints"] - previous["checkpoints"],
                               buffers_written=sample["buffers"] - previous["buffers"],
                               wal_kb=float(wal) / 1024)  # fmt: skip
                    self.rows.append(row)
                previous = sample
                self.stopping.wait(max(0.0, 1.0 - (time.perf_counter() - now)))
        finally:
            connection.close()

    def report(self, saves, fresh_at, began: float, counted, path: Path) -> str:
        """Writes every second as CSV to `path` beside the saves sent in it (count, p99 latency, p95 freshness),
        and returns the five seconds with the slowest saves, with what the timeline says of them."""
        seconds = []
        for row in self.rows:
            start = row["at"] - 1.0
            latencies = [lat for sent, lat, _ in saves if start <= sent < row["at"] and counted(sent)]
            fresh = [f - sent for sent, f in fresh_at if start <= sent < row["at"] and counted(sent)]
            seconds.append({
                "second": round(row["at"] - began, 1),
                "saves": len(latencies),
                "save_p99_ms": round(float(np.percentile(latencies, 99)) * 1000, 1) if latencies else "",
                "fresh_p95_ms": round(float(np.percentile(fresh, 95)) * 1000, 1) if fresh else "",
                **{k: (round(v, 2) if isinstance(v, float) else v) for k, v in row.items() if k != "at"},
            })  # fmt: skip
        if not seconds:
            return "  timeline: no samples"
        with path.open("w", newline="") as out:
            writer = csv.DictWriter(out, fieldnames=list(seconds[0]))
            writer.writeheader()
            writer.writerows(seconds)
        measured = [s for s in seconds if s["saves"]]
        worst = sorted(measured, key=lambda s: s["save_p99_ms"], reverse=True)[:5]
        busy = np.median([s["busy"] for s in measured]) if measured else 0.0
        lines = [f"  timeline: {len(seconds)} seconds in {path} (median machine busy {busy:.2f} cores a second); "
                 "the five seconds with the slowest saves:"]  # fmt: skip
        for s in worst:
            cpu = ", ".join(f"{k[4:]} {v:.2f}" for k, v in s.items() if k.startswith("cpu "))
            lines.append(
                f"    {s['second']:>6.1f} s: {s['saves']} saves, p99 {s['save_p99_ms']} ms, fresh p95 "
                f"{s['fresh_p95_ms']} ms; cores busy {s['busy']:.2f} ({cpu}); autovacuum: {s['autovacuum'] or '-'}; "
                f"checkpoint {s['checkpoint']}, {s['buffers_written']} buffers written; "
                f"{s['waiting_on_locks']} waiting on locks; WAL {s['wal_kb']:.0f} KB"
            )
        return "\n".join(lines)
