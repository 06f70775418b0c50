"""HTTP transport cost of the embedded endpoint, candidates side by side (issue 12 item 2's choice).

Run: .venv/bin/python bench/endpoint_transport.py [--invokes 2000]

Each candidate serves the same Invoke-API-sized exchange (a 16-byte JSON body in, a fixed JSON
answer with the endpoint's headers out) through a *blocking* handler, as the endpoint's is (an
invocation blocks until its worker answers), and one keep-alive httpx client in this process times
it, in alternating batches so machine load hits every candidate alike. Candidates:

- stdlib: http.server.ThreadingHTTPServer, what the endpoint used before (hand-framed responses);
- h11: cfn_debug.endpoint.http_server.HttpServer (h11, one thread per connection), used now;
- uvicorn: uvicorn with httptools, an ASGI app that runs the blocking handler in a thread
  (only when uvicorn is installed; it is not a dependency of cfn-debug).

No worker, no handler process: only what the HTTP layer costs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx

from cfn_debug.endpoint.http_server import HttpServer, Reply, Request

ANSWER = b'{"status": "SUCCESS", "message": "", "resourceModel": {"Id": "thing-1"}}'
HEADERS = {"x-amzn-RequestId": "0" * 36, "X-Amz-Executed-Version": "$LATEST"}
PATH = "/2015-03-31/functions/Echo/invocations"
BODY = b'{"tag": "bench"}'


def blocking_handler(body: bytes) -> bytes:
    """Stands in for EmbeddedEndpoint.invoke: returns at once."""
    return ANSWER


@contextlib.contextmanager
def stdlib_server() -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            return

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            payload = blocking_handler(self.rfile.read(length))
            lines = ["HTTP/1.1 200 OK", "Content-Type: application/json"]
            lines += [f"{k}: {v}" for k, v in HEADERS.items()]
            lines.append(f"Content-Length: {len(payload)}")
            self.wfile.write(("\r\n".join(lines) + "\r\n\r\n").encode() + payload)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2})
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def h11_server() -> Iterator[str]:
    def handle(request: Request) -> Reply:
        return Reply(200, blocking_handler(request.body), dict(HEADERS))

    server = HttpServer(
        ("127.0.0.1", 0),
        handle,
        max_body=6 * 1024 * 1024,
        too_large=lambda: Reply(413, b"{}"),
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def uvicorn_server() -> Iterator[str]:
    import uvicorn

    async def app(scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            return
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        loop = asyncio.get_running_loop()
        payload = await loop.run_in_executor(None, blocking_handler, b"".join(chunks))
        headers = [(b"content-type", b"application/json")]
        headers += [(k.encode(), v.encode()) for k, v in HEADERS.items()]
        headers.append((b"content-length", str(len(payload)).encode()))
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": payload})

    config = uvicorn.Config(
        app, host="127.0.0.1", port=0, http="httptools", log_level="error", lifespan="off"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(5)


def timed(client: httpx.Client, count: int) -> list[float]:
    times = []
    for _ in range(count):
        start = time.perf_counter()
        client.post(PATH, content=BODY).raise_for_status()
        times.append(time.perf_counter() - start)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--invokes", type=int, default=2000)
    args = parser.parse_args()
    candidates = {"stdlib": stdlib_server, "h11": h11_server}
    try:
        import httptools  # noqa: F401
        import uvicorn  # noqa: F401

        candidates["uvicorn+httptools"] = uvicorn_server
    except ImportError:
        print("uvicorn/httptools not installed: compared without them")
    with contextlib.ExitStack() as stack:
        clients = {}
        for name, factory in candidates.items():
            url = stack.enter_context(factory())
            clients[name] = stack.enter_context(httpx.Client(base_url=url, timeout=30))
            timed(clients[name], 50)  # warm-up
        results: dict[str, list[float]] = {name: [] for name in candidates}
        batch = 100
        for _ in range(max(args.invokes // batch, 1)):
            for name, client in clients.items():
                results[name] += timed(client, batch)
    base = statistics.median(results["stdlib"])
    for name, times in results.items():
        median = statistics.median(times)
        p95 = statistics.quantiles(times, n=20)[-1]
        print(
            f"{name:18} median {median * 1e6:7.1f} us  p95 {p95 * 1e6:7.1f} us  "
            f"({median / base:.2f}x stdlib)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
