#!/usr/bin/env bash
# A whole cluster of HelmReleases on one app chart: the target is under
# one second for `flate build` of the cluster, HelmReleases rendered.
#
# Usage: bench/helm-cluster.sh [RELEASES] [ROUNDS]   (default 80, 10)
#
# Generates a synthetic repository in a temporary directory (outside this
# repository): one Flux Kustomization per app, each with an OCIRepository
# and a HelmRelease (chartRef) of the same app chart (a Deployment,
# Service, ServiceAccount, ConfigMap, Ingress, HorizontalPodAutoscaler and
# PodDisruptionBudget, helpers with include/tpl/toYaml), the chart in the
# repository's chart cache (.flate/charts/app-1.4.2/, as `helm pull
# --untar` leaves it). Builds the release binary, checks that every
# HelmRelease renders, then runs `flate build bench -o json` ROUNDS times
# and prints the median, minimum and maximum wall-clock time (process
# start included) and one run's phase breakdown (FLATE_TIMINGS=1).
# FLATE_BIN=PATH uses that binary instead of building one.
set -euo pipefail
cd "$(dirname "$0")/.."
releases=${1:-80}
rounds=${2:-10}
[[ $releases =~ ^[1-9][0-9]*$ && $rounds =~ ^[1-9][0-9]*$ ]] || {
  echo "RELEASES and ROUNDS must be positive integers" >&2; exit 2; }
source bench/flate_bin.sh
target_ms=1000

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
repo=$tmp/repo

python3 - "$repo" "$releases" <<'PY'
import os, sys
repo, n = sys.argv[1], int(sys.argv[2])
def w(rel, text):
    p = os.path.join(repo, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(text)
chart = ".flate/charts/app-1.4.2"
w(f"{chart}/Chart.yaml", "apiVersion: v2\nname: app\nversion: 1.4.2\nappVersion: \"2.3.0\"\n")
w(f"{chart}/values.yaml", """replicaCount: 1
image:
  repository: ghcr.io/example/app
  tag: ""
  pullPolicy: IfNotPresent
serviceAccount:
  create: true
  annotations: {}
podAnnotations: {}
podLabels: {}
env: {}
config: {}
service:
  type: ClusterIP
  port: 80
ingress:
  enabled: false
  className: ""
  host: ""
  tls: false
resources:
  requests: {cpu: 10m, memory: 32Mi}
  limits: {memory: 128Mi}
autoscaling:
  enabled: false
  minReplicas: 1
  maxReplicas: 3
  targetCPU: 80
pdb:
  enabled: true
  minAvailable: 1
nodeSelector: {}
tolerations: []
""")
w(f"{chart}/templates/_helpers.tpl", """{{- define "app.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- define "app.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else if contains (include "app.name" .) .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name (include "app.name" .) | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- define "app.selectorLabels" -}}
app.kubernetes.io/name: {{ include "app.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}
{{- define "app.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 }}
{{ include "app.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}
""")
w(f"{chart}/templates/serviceaccount.yaml", """{{- if .Values.serviceAccount.create }}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "app.fullname" . }}
  labels:
    {{- include "app.labels" . | nindent 4 }}
  {{- with .Values.serviceAccount.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
""")
w(f"{chart}/templates/configmap.yaml", """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "app.fullname" . }}
  labels:
    {{- include "app.labels" . | nindent 4 }}
data:
  {{- range $k, $v := .Values.config }}
  {{ $k }}: {{ tpl (toString $v) $ | quote }}
  {{- end }}
""")
w(f"{chart}/templates/deployment.yaml", """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "app.fullname" . }}
  labels:
    {{- include "app.labels" . | nindent 4 }}
spec:
  {{- if not .Values.autoscaling.enabled }}
  replicas: {{ .Values.replicaCount }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "app.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      annotations:
        checksum/config: {{ include (print $.Template.BasePath "/configmap.yaml") . | sha256sum }}
        {{- with .Values.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      labels:
        {{- include "app.labels" . | nindent 8 }}
        {{- with .Values.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ include "app.fullname" . }}
      containers:
        - name: {{ .Chart.Name }}
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
          imagePullPolicy: {{ .Values.image.pullPolicy }}
          envFrom:
            - configMapRef:
                name: {{ include "app.fullname" . }}
          {{- with .Values.env }}
          env:
            {{- range $k, $v := . }}
            - name: {{ $k }}
              value: {{ $v | quote }}
            {{- end }}
          {{- end }}
          ports:
            - name: http
              containerPort: 8080
              protocol: TCP
          livenessProbe:
            httpGet: {path: /healthz, port: http}
          readinessProbe:
            httpGet: {path: /readyz, port: http}
          resources:
            {{- toYaml .Values.resources | nindent 12 }}
      {{- with .Values.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
""")
w(f"{chart}/templates/service.yaml", """apiVersion: v1
kind: Service
metadata:
  name: {{ include "app.fullname" . }}
  labels:
    {{- include "app.labels" . | nindent 4 }}
spec:
  type: {{ .Values.service.type }}
  ports:
    - port: {{ .Values.service.port }}
      targetPort: http
      protocol: TCP
      name: http
  selector:
    {{- include "app.selectorLabels" . | nindent 4 }}
""")
w(f"{chart}/templates/ingress.yaml", """{{- if .Values.ingress.enabled -}}
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: {{ include "app.fullname" . }}
  labels:
    {{- include "app.labels" . | nindent 4 }}
spec:
  {{- with .Values.ingress.className }}
  ingressClassName: {{ . }}
  {{- end }}
  {{- if .Values.ingress.tls }}
  tls:
    - hosts: [{{ .Values.ingress.host | quote }}]
      secretName: {{ include "app.fullname" . }}-tls
  {{- end }}
  rules:
    - host: {{ .Values.ingress.host | quote }}
      http:
        paths:
          - path: /
            pathType: Prefix
            backend:
              service:
                name: {{ include "app.fullname" . }}
                port:
                  number: {{ .Values.service.port }}
{{- end }}
""")
w(f"{chart}/templates/hpa.yaml", """{{- if .Values.autoscaling.enabled }}
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ include "app.fullname" . }}
  labels:
    {{- include "app.labels" . | nindent 4 }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ include "app.fullname" . }}
  minReplicas: {{ .Values.autoscaling.minReplicas }}
  maxReplicas: {{ .Values.autoscaling.maxReplicas }}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ .Values.autoscaling.targetCPU }}
{{- end }}
""")
w(f"{chart}/templates/pdb.yaml", """{{- if .Values.pdb.enabled }}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "app.fullname" . }}
  labels:
    {{- include "app.labels" . | nindent 4 }}
spec:
  minAvailable: {{ .Values.pdb.minAvailable }}
  selector:
    matchLabels:
      {{- include "app.selectorLabels" . | nindent 6 }}
{{- end }}
""")
apps = []
for i in range(n):
    name = f"app{i:03d}"
    apps.append(f"""---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: {name}
  namespace: flux-system
spec:
  interval: 1h
  path: ./kubernetes/apps/{name}
  prune: true
  targetNamespace: ns{i % 10}
  sourceRef:
    kind: GitRepository
    name: flux-system
""")
    w(f"kubernetes/apps/{name}/ocirepository.yaml", f"""apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata:
  name: {name}
spec:
  interval: 1h
  url: oci://ghcr.io/example/charts/app
  ref:
    tag: 1.4.2
""")
    w(f"kubernetes/apps/{name}/helmrelease.yaml", f"""apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: {name}
spec:
  interval: 1h
  chartRef:
    kind: OCIRepository
    name: {name}
  values:
    replicaCount: {1 + i % 3}
    image:
      tag: "2.{i % 7}.0"
    config:
      APP_NAME: "{{{{ .Release.Name }}}}"
      LOG_LEVEL: info
      INDEX: "{i}"
    env:
      FEATURE_X: "{'on' if i % 2 else 'off'}"
    ingress:
      enabled: {str(i % 2 == 0).lower()}
      className: internal
      host: {name}.example.com
      tls: true
    autoscaling:
      enabled: {str(i % 5 == 0).lower()}
""")
w("kubernetes/clusters/bench/apps.yaml", "".join(apps))
PY

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
"$flate" test hr bench --repo "$repo" >"$tmp/test.txt" 2>&1 || { cat "$tmp/test.txt" >&2; exit 1; }
tail -1 "$tmp/test.txt"
"$flate" build bench --repo "$repo" -o json >/dev/null 2>&1   # warm the page cache
TIMEFORMAT='%3R'
: >"$tmp/times"
for _ in $(seq "$rounds"); do
  { time "$flate" build bench --repo "$repo" -o json >/dev/null 2>&1; } 2>>"$tmp/times"
done
sort -n "$tmp/times" | awk -v t="$target_ms" -v n="$releases" '
  { a[NR] = $1 * 1000 }
  END {
    med = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
    printf "flate build (%d HelmReleases, -o json): median %.0f ms, min %.0f ms, max %.0f ms over %d runs\n", n, med, a[1], a[NR], NR
    printf "verdict: %s (target < %d ms)\n", (med < t) ? "PASS" : "FAIL", t
  }'
echo "one run's phases:"
FLATE_TIMINGS=1 "$flate" build bench --repo "$repo" -o json 2>&1 >/dev/null | grep '^timing' | grep -v 'wave of' || true
