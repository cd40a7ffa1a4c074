#!/usr/bin/env bash
# Regenerate tfcompat/framework/proto/*_pb2.py (and .pyi stubs) from the .proto files.
#
# Requires grpcio-tools==1.74.0, whose bundled protoc is 31.1; the generated code
# then calls ValidateProtobufRuntimeVersion(..., 6, 31, 1, ...), i.e. it needs
# protobuf runtime >= 6.31.1 (matching TensorFlow 2.21's floor). A newer
# grpcio-tools would raise that floor. Set it up once, e.g.:
#   python3 -m venv /tmp/protoc-venv
#   /tmp/protoc-venv/bin/pip install grpcio-tools==1.74.0
#   PYTHON=/tmp/protoc-venv/bin/python tools/gen_protos.sh
#
# Run from anywhere; it works from the repository root.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python}"
"$PYTHON" -m grpc_tools.protoc -I. --python_out=. --pyi_out=. tfcompat/framework/proto/*.proto
echo "generated: $(ls tfcompat/framework/proto/*_pb2.py | wc -l) _pb2.py files"
