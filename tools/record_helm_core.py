#!/usr/bin/env python3
"""Record the expected output of the chart engine's own cases,
fixtures/helm/core-*/, from Helm (v4.1.4).

The cases have the format of every case under fixtures/helm/ and are
recorded the same way: this is tools/record_helm_fixtures.py with the
`core-*` cases as the default selection (see that script for the format).

Usage: tools/record_helm_core.py [HELM] [CASE...]
HELM defaults to `helm` on PATH, else /work/helm/helm.
"""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import record_helm_fixtures  # noqa: E402

if __name__ == "__main__":
    record_helm_fixtures.main(prefix="core-")
