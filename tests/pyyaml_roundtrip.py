# SPDX-License-Identifier: Apache-2.0
# Reads the manifests of tests/yaml_emit.cpp back with PyYAML and checks every awkward string
# comes back unchanged. Exit 77 (ctest's SKIP_RETURN_CODE) when PyYAML is not installed.
#   python3 pyyaml_roundtrip.py path/to/headroom_yaml_emit
import subprocess
import sys

try:
    import yaml
except ImportError:
    print("SKIPPED: PyYAML is not installed (Debian: python3-yaml)")
    sys.exit(77)

emitter = sys.argv[1]
manifests = subprocess.run([emitter, "manifests"], check=True, capture_output=True).stdout
expected = subprocess.run([emitter, "expected"], check=True, capture_output=True).stdout

# PyYAML's reader refuses unprintable characters ("special characters are not allowed").
documents = list(yaml.safe_load_all(manifests.decode("utf-8")))
failures = 0
checked = 0
for line in expected.decode("ascii").splitlines():
    index, path, value = line.split(" ")
    node = documents[int(index)]
    for step in path.split("."):
        node = node[int(step)] if isinstance(node, list) else node[step]
    want = bytes.fromhex(value).decode("utf-8")
    checked += 1
    if node != want:
        failures += 1
        print(f"document {index}, {path}: read {node!r}, wrote {want!r}")
print(f"PyYAML {yaml.__version__}: {len(documents)} documents, {checked} strings, {failures} differ")
sys.exit(1 if failures or checked == 0 else 0)
