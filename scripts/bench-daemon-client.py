#!/usr/bin/python3
'''One run of scripts/bench-daemon: starts griptrackd, watches it, measures latency, CPU and RSS.

Runs inside Tests/FakeBlueZ/run-private-bus.sh, so DBUS_SYSTEM_BUS_ADDRESS points at the fake's private bus.'''

import argparse
import json
import os
import socket
import subprocess
import sys
import threading
import time



def cpu_ticks(pid):
    fields = open('/proc/%d/stat' % pid).read().rsplit(')', 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime (fields 14, 15)


def rss_kib(pid, field='VmRSS:'):
    """VmRSS, or with field='RssAnon:' only the anonymous part (heap, stacks): what the process itself owns, as
    opposed to clean pages of its binary and libraries, which the kernel drops and re-reads under memory pressure."""
    for line in open('/proc/%d/status' % pid):
        if line.startswith(field):
            return int(line.split()[1])
    return -1


def write_bytes(pid):
    """Bytes the process caused to be written to storage (/proc/PID/io write_bytes)."""
    for line in open('/proc/%d/io' % pid):
        if line.startswith('write_bytes:'):
            return int(line.split()[1])
    return -1


def thread_counters(pid):
    """Per thread, as {tid: (name, context switches, CPU ns)}. Context switches (voluntary + involuntary) are the
    thread going to sleep or being preempted, so their growth over a quiet window counts its wake-ups; CPU time is in
    ns, from /proc/PID/task/TID/schedstat (the clock ticks of .../stat count 10 ms steps, too coarse per thread)."""
    counts = {}
    for tid in os.listdir('/proc/%d/task' % pid):
        try:
            name = open('/proc/%d/task/%s/comm' % (pid, tid)).read().strip()
            switches = 0
            for line in open('/proc/%d/task/%s/status' % (pid, tid)):
                if line.startswith(('voluntary_ctxt_switches:', 'nonvoluntary_ctxt_switches:')):
                    switches += int(line.split()[1])
            cpu_ns = int(open('/proc/%d/task/%s/schedstat' % (pid, tid)).read().split()[0])
        except OSError:
            continue  # the thread ended meanwhile
        counts[tid] = (name, switches, cpu_ns)
    return counts


def growth_by_name(before, after, field):
    """Growth of one counter (1: context switches, 2: CPU ns) in the window, summed per thread name: threads
    alive at the end, all of a new thread's count (threads that ended inside the window are not seen)."""
    grown = {}
    for tid, counters in after.items():
        name = counters[0]
        grown[name] = grown.get(name, 0) + counters[field] - before.get(tid, (name, 0, 0))[field]
    return grown


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main():
    parser = argparse.ArgumentParser()
    for name in ('--daemon', '--config', '--socket', '--db', '--emit-log', '--result'):
        parser.add_argument(name, required=True)
    parser.add_argument('--seconds', type=int, default=30)
    parser.add_argument('--rate', type=int, default=80, help='notifications (one sample each) per second')
    parser.add_argument('--run', type=int, default=1)
    parser.add_argument('--pace', choices=('batched', 'immediate'), default='batched')
    parser.add_argument('--watchers', type=int, default=1, help='watching clients in all (one measures, the rest read)')
    parser.add_argument('--rss-every', type=int, default=0,
                        help='also sample VmRSS and RssAnon every this many seconds of the streaming window (growth runs)')
    args = parser.parse_args()
    watch = json.dumps({'class': 'WATCH', 'enable': True, 'pace': args.pace}).encode() + b'\n'

    env = dict(os.environ, GRIPTRACK_LOG_LEVEL='warning')
    daemon = subprocess.Popen(
        [args.daemon, '--config', args.config, '--socket', args.socket, '--db', args.db], env=env)
    try:
        # Up to 60 s: under valgrind (scripts/bench-callgrind) start-up takes several seconds.
        for _ in range(6000):
            if os.path.exists(args.socket) or daemon.poll() is not None:
                break
            time.sleep(0.01)
        def drain(other):
            while other.recv(65536):
                pass

        for _ in range(args.watchers - 1):  # the other watchers read everything and throw it away
            other = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            other.connect(args.socket)
            other.sendall(watch)
            threading.Thread(target=drain, args=(other,), daemon=True).start()
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.connect(args.socket)
        client.sendall(watch)
        stream = client.makefile('rb')
        hz = os.sysconf('SC_CLK_TCK')

        received = []  # (recv ns, sample index)
        start = None
        window = None
        streaming_cpu = streaming_rss = None
        rss_series = []  # (seconds into the window, VmRSS KiB, RssAnon KiB)
        while True:
            line = stream.readline()
            now = time.monotonic_ns()
            if not line:
                raise SystemExit('griptrackd closed the connection')
            message = json.loads(line)
            if message.get('class') != 'SAMPLES':
                continue
            if start is None:
                start = now  # first samples: warm up 3 s, then measure
            for t in message['t']:
                received.append((now, int(round(t * args.rate))))
            elapsed = (now - start) / 1e9
            if window is None and elapsed >= 3:
                window = (now, cpu_ticks(daemon.pid), write_bytes(daemon.pid))
                streaming_threads = thread_counters(daemon.pid)
            if window is not None and args.rss_every and (now - window[0]) / 1e9 >= len(rss_series) * args.rss_every:
                rss_series.append((round((now - window[0]) / 1e9), rss_kib(daemon.pid), rss_kib(daemon.pid, 'RssAnon:')))
                print('run %d: %5d s  VmRSS %.2f MiB  RssAnon %.2f MiB' % (
                    args.run, rss_series[-1][0], rss_series[-1][1] / 1024, rss_series[-1][2] / 1024), file=sys.stderr)
            if window is not None and (now - window[0]) / 1e9 >= args.seconds:
                window_s = (now - window[0]) / 1e9
                streaming_cpu = 100.0 * (cpu_ticks(daemon.pid) - window[1]) / hz / window_s
                streaming_rss = rss_kib(daemon.pid)
                streaming_anon = rss_kib(daemon.pid, 'RssAnon:')
                threads_after = thread_counters(daemon.pid)
                streaming_woken = growth_by_name(streaming_threads, threads_after, 1)
                print('run %d: wake-ups per second by thread while streaming: %s' % (args.run, json.dumps(
                    {k: round(v / window_s, 1) for k, v in sorted(streaming_woken.items()) if v})), file=sys.stderr)
                # Where the CPU goes, per thread: the D-Bus thread (radio), the consumer (decode, segment), the socket
                # thread (SAMPLES to watchers) and the recorder (commits).
                streaming_thread_cpu = {
                    name: cpu_ns / 1e6 / window_s
                    for name, cpu_ns in growth_by_name(streaming_threads, threads_after, 2).items()
                    if name.startswith('gt-')}
                streaming_wakeups = sum(v for k, v in streaming_woken.items() if k.startswith('gt-')) / window_s
                # The fake alternates 5 s rest and 5 s pull, so the daemon records automatically all along.
                written_per_hour = (write_bytes(daemon.pid) - window[2]) * 3600 / window_s
                break

        # Idle: connected, the stream has ended (or will within a few seconds); wait for silence, then measure.
        client.setblocking(False)
        quiet_since = time.monotonic()
        while time.monotonic() - quiet_since < 2:
            try:
                if client.recv(65536):
                    quiet_since = time.monotonic()
            except BlockingIOError:
                time.sleep(0.05)
        before, t0, threads_before = cpu_ticks(daemon.pid), time.monotonic(), thread_counters(daemon.pid)
        time.sleep(min(args.seconds, 60))  # a growth run's hour of streaming needs no hour of idling
        idle_s = time.monotonic() - t0
        idle_cpu = 100.0 * (cpu_ticks(daemon.pid) - before) / hz / idle_s
        idle_rss = rss_kib(daemon.pid)
        woken = growth_by_name(threads_before, thread_counters(daemon.pid), 1)
        print('run %d: idle wake-ups by thread over %.0f s: %s' % (
            args.run, idle_s, json.dumps({k: v for k, v in sorted(woken.items()) if v})), file=sys.stderr)

        emits = {}
        for entry in open(args.emit_log):
            ns, index = entry.split()
            emits.setdefault(int(index), int(ns))
        latencies = [(recv - emits[index]) / 1e6 for recv, index in received if index in emits]
        result = {
            'latency_p50_ms': percentile(latencies, 0.50),
            'latency_p99_ms': percentile(latencies, 0.99),
            'samples_matched': len(latencies),
            'cpu_streaming_pct': streaming_cpu,
            'rss_streaming_mib': streaming_rss / 1024,
            'rss_anon_streaming_mib': streaming_anon / 1024,
            'own_thread_wakeups_per_s_streaming': streaming_wakeups,
            'cpu_idle_pct': idle_cpu,
            'rss_idle_mib': idle_rss / 1024,
            'idle_wakeups_per_min': sum(woken.values()) * 60 / idle_s,
            'write_mib_per_hour_streaming': written_per_hour / (1 << 20),
        }
        for name, ms in sorted(streaming_thread_cpu.items()):
            result['cpu_ms_per_s_%s' % name.removeprefix('gt-')] = ms
        if len(rss_series) >= 2:
            # Growth from the first sample after the warm-up to the last, and the peak: a leak shows as a steady climb.
            result['rss_growth_mib'] = (rss_series[-1][1] - rss_series[0][1]) / 1024
            result['rss_anon_growth_mib'] = (rss_series[-1][2] - rss_series[0][2]) / 1024
            result['rss_peak_mib'] = max(rss for _, rss, _ in rss_series) / 1024
        json.dump(result, open(args.result, 'w'))
        print('run %d: %s' % (args.run, json.dumps(result)), file=sys.stderr)
    finally:
        daemon.terminate()
        daemon.wait(timeout=10)


if __name__ == '__main__':
    main()
