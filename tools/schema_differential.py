#!/usr/bin/env python3
"""Differential check of `values.schema.json`: Helm against flate.

Draws random JSON Schemas (drafts 4, 6, 7, 2019-09 and 2020-12, or none
named; `type` alone or in lists, `enum`, `const`, bounds in both drafts'
forms, `multipleOf`, lengths, `pattern`, `format`, `items` as a schema
and as a tuple, `prefixItems`, `contains`, `uniqueItems`, `properties`,
`required`, `additionalProperties`, `patternProperties`, `propertyNames`,
`dependentRequired`, `allOf`/`anyOf`/`oneOf`/`not`, `if`/`then`/`else`,
local `$ref`s to `definitions` and `$defs`) and values that mostly fit
them, puts both in a one-template chart and renders it with `helm
template` and `flate helm template`. Reports each pair where one tool
passes and the other fails, and counts apart the pairs where both fail
with differently worded messages (the known difference of
docs/helm.md: flate words violations with its own validator).

Usage: tools/schema_differential.py FLATE HELM [COUNT] [SEED]
"""
import concurrent.futures as cf
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import helm_differential  # noqa: E402

DRAFTS = [None, "http://json-schema.org/draft-04/schema#", "http://json-schema.org/draft-06/schema#",
          "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2019-09/schema",
          "https://json-schema.org/draft/2020-12/schema"]
TYPES = ["string", "integer", "number", "boolean", "array", "object", "null"]
NAMES = ["a", "b", "c", "port", "name"]
PATTERNS = ["^[a-z]+$", "\\d", "^v[0-9]+\\.[0-9]+$", "^$", "[A-Z]"]
FORMATS = ["email", "ipv4", "ipv6", "date-time", "date", "uri", "hostname", "uuid", "duration", "regex"]
STRINGS = ["", "abc", "ABC", "a1", "v1.2", "x@y.z", "10.0.0.1", "::1", "2024-01-02T03:04:05Z", "2024-01-02",
           "http://e.x/p", "host.name", "123e4567-e89b-12d3-a456-426614174000", "P1D", "[", "Ünï"]
NUMBERS = [0, 1, -1, 2, 3, 10, 0.5, 1.5, 100, 65535, 65536, 1e3, 2.0]


class Gen(helm_differential.Draws):
    def __init__(self, rng):
        super().__init__(rng)
        self.draft = None

    def schema(self, depth):
        r = self.rng
        s = {}
        if depth > 2 or self.chance(0.7):
            t = r.choice(TYPES[:6])
            if self.chance(0.15):
                s["type"] = sorted(set([t, r.choice(TYPES)]))
            else:
                s["type"] = t
        else:
            t = None
        kind = t or r.choice(TYPES[:6])
        if kind == "string":
            if self.chance(0.3):
                s["minLength" if self.chance(0.5) else "maxLength"] = r.randint(0, 4)
            if self.chance(0.3):
                s["pattern"] = r.choice(PATTERNS)
            if self.chance(0.2):
                s["format"] = r.choice(FORMATS)
        elif kind in ("integer", "number"):
            if self.chance(0.4):
                key = r.choice(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"])
                if key.startswith("exclusive") and self.draft and "draft-04" in self.draft:
                    s[key.replace("exclusiveM", "m")] = r.choice(NUMBERS)
                    s[key] = r.choice([True, False])
                else:
                    s[key] = r.choice(NUMBERS)
            if self.chance(0.2):
                s["multipleOf"] = r.choice([1, 2, 0.5, 3])
        elif kind == "array" and depth < 3:
            k = r.random()
            if k < 0.5:
                s["items"] = self.schema(depth + 1)
            elif k < 0.65:
                key = "prefixItems" if self.draft and "2020" in self.draft else "items"
                s[key] = [self.schema(depth + 1) for _ in range(r.randint(1, 2))]
            if self.chance(0.2):
                s["contains"] = self.schema(depth + 1)
            if self.chance(0.2):
                s["minItems" if self.chance(0.5) else "maxItems"] = r.randint(0, 3)
            if self.chance(0.15):
                s["uniqueItems"] = True
        elif kind == "object" and depth < 3:
            s.update(self.object(depth + 1))
        if self.chance(0.12):
            s["enum"] = [self.value(depth + 1) for _ in range(r.randint(1, 3))]
        if self.chance(0.05):
            s["const"] = self.value(depth + 1)
        if depth < 2 and self.chance(0.15):
            key = r.choice(["allOf", "anyOf", "oneOf"])
            s[key] = [self.schema(depth + 1) for _ in range(r.randint(1, 3))]
        if depth < 2 and self.chance(0.05):
            s["not"] = self.schema(depth + 1)
        if depth < 2 and self.chance(0.06):
            s["if"] = self.schema(depth + 1)
            s["then"] = self.schema(depth + 1)
            if self.chance(0.5):
                s["else"] = self.schema(depth + 1)
        if self.chance(0.06):
            return {"$ref": "#/%s/d%d" % ("definitions" if self.chance(0.5) else "$defs", r.randint(0, 1))}
        return s

    def object(self, depth):
        r = self.rng
        s = {}
        names = r.sample(NAMES, r.randint(0, 3))
        if names or self.chance(0.5):
            s["properties"] = {n: self.schema(depth + 1) for n in names}
        if self.chance(0.4):
            s["required"] = r.sample(NAMES, r.randint(1, 2))
        if self.chance(0.25):
            s["additionalProperties"] = False if self.chance(0.6) else self.schema(depth + 1)
        if self.chance(0.1):
            s["patternProperties"] = {r.choice(["^x", "^[a-c]$"]): self.schema(depth + 1)}
        if self.chance(0.05):
            s["propertyNames"] = {"pattern": "^[a-z]+$", "maxLength": 3}
        if self.chance(0.05):
            s["dependentRequired" if not self.draft or "20" in self.draft else "dependencies"] = {
                r.choice(NAMES): r.sample(NAMES, 1)}
        if self.chance(0.1):
            s["minProperties" if self.chance(0.5) else "maxProperties"] = r.randint(0, 3)
        return s

    def value(self, depth):
        r = self.rng.random()
        if r < 0.3:
            return self.rng.choice(STRINGS)
        if r < 0.6:
            return self.rng.choice(NUMBERS)
        if r < 0.68:
            return self.rng.choice([True, False])
        if r < 0.72:
            return None
        if depth > 2 or r < 0.85:
            return [self.value(depth + 1) for _ in range(self.rng.randint(0, 3))]
        return {n: self.value(depth + 1) for n in self.rng.sample(NAMES, self.rng.randint(0, 3))}

    def fitting(self, s, depth):
        """A value drawn to fit the schema `s` more often than not."""
        if not isinstance(s, dict) or depth > 3 or self.chance(0.15):
            return self.value(depth)
        if "enum" in s and self.chance(0.7):
            return self.rng.choice(s["enum"])
        t = s.get("type")
        if isinstance(t, list):
            t = self.rng.choice(t)
        if t == "object" or "properties" in s:
            out = {}
            for n, sub in s.get("properties", {}).items():
                if self.chance(0.8):
                    out[n] = self.fitting(sub, depth + 1)
            for n in s.get("required", []):
                if n not in out and self.chance(0.7):
                    out[n] = self.value(depth + 1)
            if self.chance(0.2):
                out[self.rng.choice(["x1", "zz", "b"])] = self.value(depth + 1)
            return out
        if t == "array":
            items = s.get("items")
            return [self.fitting(items if isinstance(items, dict) else {}, depth + 1)
                    for _ in range(self.rng.randint(0, 3))]
        if t == "string":
            return self.rng.choice(STRINGS)
        if t == "integer":
            return self.rng.choice([0, 1, 2, 3, 10, 100, 65535, 65536, -1])
        if t == "number":
            return self.rng.choice(NUMBERS)
        if t == "boolean":
            return self.rng.choice([True, False])
        if t == "null":
            return None
        return self.value(depth)


def draw(rng):
    g = Gen(rng)
    g.draft = rng.choice(DRAFTS)
    root = {"type": "object"}
    root.update(g.object(0))
    defs = {"d0": g.schema(2), "d1": g.schema(2)}
    if g.draft:
        root["$schema"] = g.draft
    root["definitions"] = defs
    root["$defs"] = defs
    values = g.fitting(root, 0)
    if not isinstance(values, dict):
        values = {}
    return root, values


def main():
    flate, helm, count, rng = helm_differential.arguments()
    items = [draw(rng) for _ in range(count)]

    def one(item):
        schema, values = item
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "templates"))
            open(os.path.join(d, "Chart.yaml"), "w").write(helm_differential.CHART_YAML)
            # JSON is YAML: the values file is written as JSON.
            open(os.path.join(d, "values.yaml"), "w").write(json.dumps(values))
            open(os.path.join(d, "values.schema.json"), "w").write(json.dumps(schema, indent=1))
            open(os.path.join(d, "templates", "t.yaml"), "w").write("ok: 1\n")
            return (item, helm_differential.render(helm, True, d),
                    helm_differential.render(flate, False, d))

    same = {"ok": 0, "error": 0}
    worded = 0
    differ = 0
    with cf.ThreadPoolExecutor(2) as ex:
        for (schema, values), h, f in ex.map(one, items):
            if h == f:
                same[h[0]] += 1
                continue
            if h[0] == f[0] == "error":
                worded += 1
                tag = "WORDED"
            else:
                differ += 1
                tag = "DIFF"
            print("%s\n  schema: %s\n  values: %s\n  helm:  %s %r\n  flate: %s %r\n"
                  % (tag, json.dumps(schema), json.dumps(values), h[0], h[1][:1500], f[0], f[1][:1500]))
    print("pairs: %d, identical: %d (%d pass, %d fail alike), both fail worded apart: %d, "
          "one passes and one fails: %d"
          % (len(items), same["ok"] + same["error"], same["ok"], same["error"], worded, differ))


if __name__ == "__main__":
    main()
