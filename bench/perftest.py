"""ucx_perftest as the benchmarks run it: a server pinned to core 0, a
client pinned to core 1 over the loopback, UCX's seconds per message."""

import re
import socket
import subprocess
import sys
import time


def free_port():
    """A TCP port on the loopback that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ucx_perftest(test, size, iterations, env, window=16, server_wrap=(), client_wrap=()):
    """UCX's seconds per message of `size` bytes: the median half round
    trip (tag_lat) or the overall time per message from its message rate
    (tag_bw, `window` messages in flight). `env` is the whole environment;
    the wraps prefix the server's and the client's command (strace)."""
    port = str(free_port())
    common = ["-t", test, "-s", str(size), "-n", str(iterations), "-w", str(max(iterations // 10, 2)), "-p", port]
    if test == "tag_bw":
        common += ["-O", str(window)]
    server = subprocess.Popen(list(server_wrap) + ["taskset", "-c", "0", "ucx_perftest"] + common, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(50):
            client = subprocess.run(list(client_wrap) + ["taskset", "-c", "1", "ucx_perftest", "127.0.0.1"] + common,
                                    env=env, capture_output=True, text=True)
            if client.returncode == 0:
                break
            time.sleep(0.1)
        else:
            server.kill()
            sys.exit(f"ucx_perftest failed: {client.stderr.strip()}")
    finally:
        server.wait(timeout=60)
    final = [line for line in client.stdout.splitlines() if line.startswith("Final:")]
    if not final:
        sys.exit(f"ucx_perftest printed no result:\n{client.stdout}")
    # Final: iterations, p50 latency, avg latency, overall latency (us),
    # bandwidth avg, overall (MB/s), message rate avg, overall.
    fields = re.split(r"\s+", final[0].strip())[1:]
    if test == "tag_lat":
        return float(fields[1]) * 1e-6
    return 1.0 / float(fields[7])
