"""A loopback OTLP/HTTP trace receiver for the tests: decodes each export request with the
official protobuf definitions (the `opentelemetry-proto` package) and appends one JSON line
per span to the file named by its first argument. Prints its port, then serves until killed."""

import http.server
import json
import sys

from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

OUT = sys.argv[1]


def value(any_value):
    kind = any_value.WhichOneof("value")
    if kind is None:
        return None
    if kind == "array_value":
        return [value(item) for item in any_value.array_value.values]
    if kind == "kvlist_value":
        return {item.key: value(item.value) for item in any_value.kvlist_value.values}
    if kind == "bytes_value":
        return any_value.bytes_value.hex()
    return getattr(any_value, kind)


def attributes(items):
    return {item.key: value(item.value) for item in items}


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        request = trace_service_pb2.ExportTraceServiceRequest()
        request.ParseFromString(body)
        rows = []
        for resource_spans in request.resource_spans:
            resource = attributes(resource_spans.resource.attributes)
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    rows.append({
                        "path": self.path,
                        "content_type": self.headers.get("Content-Type"),
                        "authorization": self.headers.get("Authorization"),
                        "scope": scope_spans.scope.name,
                        "resource": resource,
                        "name": span.name,
                        "kind": span.kind,
                        "trace_id": span.trace_id.hex(),
                        "span_id": span.span_id.hex(),
                        "parent_span_id": span.parent_span_id.hex(),
                        "attributes": attributes(span.attributes),
                        "events": [
                            {"name": event.name, "attributes": attributes(event.attributes)}
                            for event in span.events
                        ],
                        "status": {"code": span.status.code, "message": span.status.message},
                    })
        with open(OUT, "a", encoding="utf-8") as out:
            for row in rows:
                out.write(json.dumps(row) + "\n")
        answer = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Receiver)
print(server.server_port, flush=True)
server.serve_forever()
