//! The embedded schemas: valid and invalid objects of built-in kinds, Flux
//! kinds and kustomization files; the Flux schemas cover every field the
//! Flux layer reads; `flate schemas import` of a real-shaped CRD; user
//! schema locations (directories and kubeconform templates).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use flate::check::schema::{
    CrdSchemas, Lookup, SchemaError, SchemaOptions, SchemaSet, errors, read_schema_file,
    strip_nulls, unserved, validate_object,
};
use flate::resource::{Origin, Resource};
use serde_json::{Value, json};

fn object(yaml: &str) -> Resource {
    Resource::new(flate::yaml::parse_one(yaml).unwrap(), Origin::default())
}

/// Schema errors of one object (None: no schema).
fn validate(yaml: &str) -> Option<Vec<SchemaError>> {
    let set = SchemaSet::new(SchemaOptions::default());
    validate_object(&set, &object(yaml), &CrdSchemas::default()).unwrap()
}

#[track_caller]
fn valid(yaml: &str) {
    let e = validate(yaml).expect("a schema");
    assert!(e.is_empty(), "unexpected errors {e:?} for\n{yaml}");
}

/// Asserts an error at `path` whose message contains `needle`.
#[track_caller]
fn invalid(yaml: &str, path: &str, needle: &str) {
    let e = validate(yaml).expect("a schema");
    assert!(
        e.iter()
            .any(|x| x.path == path && x.message.contains(needle)),
        "no error at {path} containing {needle:?}: {e:?}"
    );
}

const DEPLOYMENT: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
  labels: {app: web}
  creationTimestamp: null
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  strategy:
    rollingUpdate: {maxSurge: 25%, maxUnavailable: 1}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: nginx:1.27.3
          ports:
            - containerPort: 8080
              name: http
          resources:
            requests: {cpu: 100m, memory: 128Mi}
            limits: {cpu: 1, memory: 1.5Gi}
          livenessProbe:
            httpGet: {path: /healthz, port: http}
";

#[test]
fn builtin_kinds_accept_valid_objects() {
    valid(DEPLOYMENT);
    valid(
        "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  ports:\n    - port: 80\n      targetPort: http\n  selector: {app: web}\n",
    );
    valid("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n");
    valid(
        "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ntype: Opaque\ndata: {a: aGVsbG8=}\nstringData: {b: plain}\n",
    );
    valid("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: n\n  annotations: {a: b}\n");
    valid(
        "apiVersion: networking.k8s.io/v1\nkind: ServiceCIDR\nmetadata: {name: s}\nspec:\n  cidrs: [10.69.0.0/24]\n",
    );
    valid(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: ws.example.com}\nspec:\n  group: example.com\n  names: {kind: W, plural: ws}\n  scope: Namespaced\n  versions:\n    - name: v1\n      served: true\n      storage: true\n      schema:\n        openAPIV3Schema:\n          type: object\n          x-kubernetes-preserve-unknown-fields: true\n          properties:\n            spec: {type: object, default: {}}\n            mode: {type: string, enum: [a, b], default: a}\n",
    );
}

#[test]
fn builtin_kinds_reject_invalid_objects() {
    invalid(
        &DEPLOYMENT.replace("replicas: 2", "replicas: \"2\""),
        "spec.replicas",
        "is not of type \"integer\"",
    );
    invalid(
        &DEPLOYMENT.replace("image: nginx", "imag: nginx"),
        "spec.template.spec.containers[0].imag",
        "unknown field \"imag\"",
    );
    invalid(
        &DEPLOYMENT.replace("memory: 1.5Gi", "memory: 1.5GB"),
        "spec.template.spec.containers[0].resources.limits.memory",
        "is not a Kubernetes quantity",
    );
    invalid(
        &DEPLOYMENT.replace(
            "  labels: {app: web}\n  creation",
            "  label: {app: web}\n  creation",
        ),
        "metadata.label",
        "unknown field",
    );
    invalid(
        "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  ports:\n    - port: 80\n      targetPort: true\n",
        "spec.ports[0].targetPort",
        "true",
    );
    invalid(
        "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {a: not base64!}\n",
        "data.a",
        "does not match",
    );
    invalid(
        "apiVersion: v1\nkind: ConfigMap\ndata: {a: b}\n",
        "",
        "\"metadata\" is a required property",
    );
    // A version the newest embedded Kubernetes does not serve.
    assert_eq!(
        validate("apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata: {name: p}\n"),
        None
    );
    assert_eq!(
        unserved("policy/v1beta1", "PodDisruptionBudget"),
        Some(vec!["policy/v1".to_string()])
    );
    assert_eq!(unserved("policy/v1", "PodDisruptionBudget"), None);
    assert_eq!(unserved("example.com/v1", "Widget"), None);
}

const KS: &str = "apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: app, namespace: flux-system}
spec:
  interval: 1h
  retryInterval: 2m
  timeout: 5m
  path: ./kubernetes/apps/app
  prune: true
  wait: true
  sourceRef: {kind: GitRepository, name: flux-system}
  dependsOn: [{name: db}]
  targetNamespace: apps
  postBuild:
    substitute: {A: b}
    substituteFrom:
      - {kind: ConfigMap, name: settings, optional: true}
  patches:
    - target: {kind: OCIRepository, name: app}
      patch: |
        kind: OCIRepository
  components: [../c]
  healthChecks: [{apiVersion: apps/v1, kind: Deployment, name: web, namespace: apps}]
";

const HR: &str = "apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: app}
spec:
  interval: 1h
  chartRef: {kind: OCIRepository, name: app}
  install: {crds: CreateReplace, remediation: {retries: 3}}
  upgrade:
    cleanupOnFail: true
    crds: CreateReplace
    strategy: {name: RemediateOnFailure}
    remediation: {remediateLastFailure: true, retries: 3, strategy: rollback}
  valuesFrom: [{kind: ConfigMap, name: values, valuesKey: values.yaml}]
  values:
    any: {thing: [1, 2]}
";

#[test]
fn flux_kinds() {
    valid(KS);
    invalid(
        &KS.replace("  prune: true\n", ""),
        "spec",
        "\"prune\" is a required property",
    );
    invalid(
        &KS.replace("interval: 1h", "interval: 1 hour"),
        "spec.interval",
        "does not match",
    );
    invalid(
        &KS.replace("kind: GitRepository", "kind: GitRepo"),
        "spec.sourceRef.kind",
        "is not one of",
    );
    invalid(
        &KS.replace("  wait: true", "  waitt: true"),
        "spec.waitt",
        "unknown field",
    );
    invalid(
        &KS.replace("substitute: {A: b}", "substitute: {A: 1}"),
        "spec.postBuild.substitute.A",
        "is not of type \"string\"",
    );

    valid(HR);
    invalid(
        &HR.replace("  values:\n", "  value:\n"),
        "spec.value",
        "unknown field",
    );
    invalid(
        &HR.replace(
            "  chartRef: {kind: OCIRepository, name: app}\n",
            "  chartRef: {kind: OCIRepository, name: app}\n  chart: {spec: {chart: app, sourceRef: {kind: HelmRepository, name: r}}}\n",
        ),
        "spec",
        "oneOf",
    );
    invalid(
        &HR.replace("crds: CreateReplace, ", "crds: Replace, "),
        "spec.install.crds",
        "is not one of",
    );
    valid(&HR.replace(
        "  chartRef: {kind: OCIRepository, name: app}\n",
        "  chart:\n    spec:\n      chart: app\n      version: 1.x\n      sourceRef: {kind: HelmRepository, name: r, namespace: flux-system}\n",
    ));

    let oci = "apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata: {name: app}\nspec:\n  interval: 15m\n  url: oci://ghcr.io/a/b\n  layerSelector: {mediaType: application/vnd.cncf.helm.chart.content.v1.tar+gzip, operation: copy}\n  ref: {tag: 1.0.0, digest: 'sha256:00'}\n";
    valid(oci);
    invalid(
        &oci.replace("oci://", "https://"),
        "spec.url",
        "does not match",
    );
    invalid(
        &oci.replace("operation: copy", "operation: move"),
        "spec.layerSelector.operation",
        "is not one of",
    );
    invalid(
        &oci.replace("ref: {tag", "ref: {version"),
        "spec.ref.version",
        "unknown field",
    );

    let git = "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: g}\nspec:\n  interval: 1m\n  url: https://github.com/a/b\n  ref: {branch: main}\n";
    valid(git);
    invalid(
        &git.replace("ref: {branch: main}", "ref: main"),
        "spec.ref",
        "is not of type \"object\"",
    );

    let helmrepo = "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata: {name: r}\nspec:\n  type: oci\n  url: oci://ghcr.io/a\n";
    valid(helmrepo);
    invalid(
        &helmrepo.replace("type: oci", "type: OCI"),
        "spec.type",
        "is not one of",
    );

    let chart = "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmChart\nmetadata: {name: c}\nspec:\n  interval: 1h\n  chart: app\n  version: '>=1.0.0'\n  sourceRef: {kind: HelmRepository, name: r}\n";
    valid(chart);
    invalid(
        &chart.replace("  chart: app\n", ""),
        "spec",
        "\"chart\" is a required property",
    );

    // Other versions of the Flux kinds have no embedded schema.
    assert_eq!(validate(&KS.replace("/v1\n", "/v1beta2\n")), None);
}

/// The other kinds a Flux repository applies: notifications, image
/// automation, buckets, artifact generators and Flux Operator's kinds,
/// each as the Flux documentation writes it, and the mistakes their CRDs
/// refuse.
#[test]
fn flux_notification_image_and_operator_kinds() {
    let provider = "apiVersion: notification.toolkit.fluxcd.io/v1beta3\nkind: Provider\nmetadata: {name: discord, namespace: flux-system}\nspec:\n  type: discord\n  channel: alerts\n  secretRef: {name: discord-webhook}\n";
    valid(provider);
    invalid(
        &provider.replace("type: discord", "type: Discord"),
        "spec.type",
        "is not one of",
    );
    invalid(
        &provider.replace(
            "secretRef: {name: discord-webhook}",
            "secretRef: discord-webhook",
        ),
        "spec.secretRef",
        "is not of type \"object\"",
    );
    invalid(
        &provider.replace("  channel:", "  chanel:"),
        "spec.chanel",
        "unknown field",
    );
    invalid(
        &provider.replace("  channel: alerts\n", "  timeout: 1h\n"),
        "spec.timeout",
        "does not match",
    );

    let alert = "apiVersion: notification.toolkit.fluxcd.io/v1beta3\nkind: Alert\nmetadata: {name: flux, namespace: flux-system}\nspec:\n  providerRef: {name: discord}\n  eventSeverity: error\n  eventSources:\n    - {kind: Kustomization, name: '*'}\n    - {kind: HelmRelease, name: '*', namespace: media}\n  exclusionList: ['error.*lookup github\\.com']\n  eventMetadata: {cluster: main}\n";
    valid(alert);
    // Flux Operator adds its kinds to the notification CRDs it installs.
    valid(&alert.replace(
        "{kind: Kustomization, name: '*'}",
        "{kind: FluxInstance, name: '*'}",
    ));
    invalid(
        &alert.replace("eventSeverity: error", "eventSeverity: warning"),
        "spec.eventSeverity",
        "is not one of",
    );
    invalid(
        &alert.replace("{kind: HelmRelease,", "{kind: HelmReleases,"),
        "spec.eventSources[1].kind",
        "is not one of",
    );
    invalid(
        &alert.replace("  providerRef: {name: discord}\n", ""),
        "spec",
        "\"providerRef\" is a required property",
    );
    invalid(
        &alert.replace("name: '*', namespace: media", "name: '*', namespace: ''"),
        "spec.eventSources[1].namespace",
        "shorter than 1 character",
    );

    let receiver = "apiVersion: notification.toolkit.fluxcd.io/v1\nkind: Receiver\nmetadata: {name: github, namespace: flux-system}\nspec:\n  type: github\n  events: [ping, push]\n  secretRef: {name: github-webhook-token}\n  resources:\n    - {apiVersion: source.toolkit.fluxcd.io/v1, kind: GitRepository, name: flux-system}\n";
    valid(receiver);
    invalid(
        &receiver.replace("type: github", "type: GitHub"),
        "spec.type",
        "is not one of",
    );
    invalid(
        &receiver.replace("  resources:\n    - {apiVersion: source.toolkit.fluxcd.io/v1, kind: GitRepository, name: flux-system}\n", ""),
        "spec",
        "\"resources\" is a required property",
    );
    // A Receiver of the older API version has no embedded schema.
    assert_eq!(
        validate(&receiver.replace("/v1\nkind: Receiver", "/v1beta2\nkind: Receiver")),
        None
    );

    let rset = "apiVersion: fluxcd.controlplane.io/v1\nkind: ResourceSet\nmetadata: {name: apps, namespace: flux-system}\nspec:\n  inputs:\n    - {tenant: team1, replicas: 2, tags: [a]}\n  dependsOn:\n    - {apiVersion: fluxcd.controlplane.io/v1, kind: FluxInstance, name: flux, ready: true}\n  resources:\n    - apiVersion: v1\n      kind: Namespace\n      metadata: {name: '<< inputs.tenant >>'}\n";
    valid(rset);
    valid(&format!("{rset}  inputStrategy: {{name: Permute}}\n"));
    invalid(
        &format!("{rset}  inputStrategy: {{name: Merge}}\n"),
        "spec.inputStrategy.name",
        "is not one of",
    );
    invalid(
        &rset.replace("  inputs:", "  input:"),
        "spec.input",
        "unknown field",
    );
    invalid(
        &rset.replace("kind: FluxInstance, name: flux,", "kind: FluxInstance,"),
        "spec.dependsOn[0]",
        "\"name\" is a required property",
    );

    let instance = "apiVersion: fluxcd.controlplane.io/v1\nkind: FluxInstance\nmetadata: {name: flux, namespace: flux-system}\nspec:\n  distribution: {version: 2.x, registry: ghcr.io/fluxcd}\n  components: [source-controller, kustomize-controller, helm-controller, notification-controller]\n  cluster: {type: kubernetes, size: medium, networkPolicy: false}\n  sync: {kind: GitRepository, url: 'https://github.com/a/b', ref: refs/heads/main, path: kubernetes/flux/cluster}\n  kustomize:\n    patches:\n      - target: {kind: Deployment}\n        patch: |\n          - op: add\n            path: /spec/template/spec/containers/0/args/-\n            value: --concurrent=10\n";
    valid(instance);
    invalid(
        &instance.replace("notification-controller]", "image-controller]"),
        "spec.components[3]",
        "is not one of",
    );
    invalid(
        &instance.replace("version: 2.x, ", ""),
        "spec.distribution",
        "\"version\" is a required property",
    );

    let provider_input = "apiVersion: fluxcd.controlplane.io/v1\nkind: ResourceSetInputProvider\nmetadata: {name: prs, namespace: flux-system}\nspec:\n  type: GitHubPullRequest\n  url: https://github.com/a/b\n  filter: {labels: [deploy/flux-preview], limit: 10}\n  secretRef: {name: github-token}\n";
    valid(provider_input);
    invalid(
        &provider_input.replace("type: GitHubPullRequest", "type: GithubPullRequest"),
        "spec.type",
        "is not one of",
    );

    let images = [
        "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImageRepository\nmetadata: {name: app}\nspec:\n  image: ghcr.io/a/app\n  interval: 5m\n  provider: generic\n",
        "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImagePolicy\nmetadata: {name: app}\nspec:\n  imageRepositoryRef: {name: app}\n  filterTags: {pattern: '^main-[a-f0-9]+-(?P<ts>[0-9]+)', extract: '$ts'}\n  policy: {numerical: {order: asc}}\n",
        "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImageUpdateAutomation\nmetadata: {name: flux-system}\nspec:\n  interval: 30m\n  sourceRef: {kind: GitRepository, name: flux-system}\n  git:\n    checkout: {ref: {branch: main}}\n    commit:\n      author: {email: fluxcdbot@users.noreply.github.com, name: fluxcdbot}\n      messageTemplate: '{{range .Changed.Changes}}{{print .OldValue}} -> {{println .NewValue}}{{end}}'\n    push: {branch: main}\n  update: {path: ./clusters/production, strategy: Setters}\n",
    ];
    for y in images {
        valid(y);
    }
    invalid(
        &images[0].replace("interval: 5m", "interval: 5min"),
        "spec.interval",
        "does not match",
    );
    invalid(
        &images[1].replace("order: asc", "order: ascending"),
        "spec.policy.numerical.order",
        "is not one of",
    );
    invalid(
        &images[2].replace("strategy: Setters", "strategy: setters"),
        "spec.update.strategy",
        "is not one of",
    );

    let generator = "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: ArtifactGenerator\nmetadata: {name: podinfo, namespace: flux-system}\nspec:\n  sources:\n    - {alias: chart, kind: OCIRepository, name: podinfo-chart}\n    - {alias: repo, kind: GitRepository, name: podinfo-values}\n  artifacts:\n    - name: podinfo-composite\n      copy:\n        - {from: '@chart/', to: '@artifact/'}\n        - {from: '@repo/charts/podinfo/values-prod.yaml', to: '@artifact/podinfo/values.yaml', strategy: Merge}\n";
    valid(generator);
    invalid(
        &generator.replace("strategy: Merge", "strategy: Append"),
        "spec.artifacts[0].copy[1].strategy",
        "is not one of",
    );
    invalid(
        &generator.replace("{alias: chart, ", "{"),
        "spec.sources[0]",
        "\"alias\" is a required property",
    );

    let bucket = "apiVersion: source.toolkit.fluxcd.io/v1\nkind: Bucket\nmetadata: {name: b}\nspec:\n  interval: 5m\n  provider: aws\n  bucketName: podinfo\n  endpoint: s3.amazonaws.com\n  region: us-east-1\n";
    valid(bucket);
    invalid(
        &bucket.replace("provider: aws", "provider: s3"),
        "spec.provider",
        "is not one of",
    );
}

fn kustomization_file(yaml: &str, kind: &str) -> Vec<SchemaError> {
    let set = SchemaSet::new(SchemaOptions::default());
    let api = if kind == "Component" {
        "kustomize.config.k8s.io/v1alpha1"
    } else {
        "kustomize.config.k8s.io/v1beta1"
    };
    let Lookup::Found { validator, .. } = set.lookup(api, kind, &CrdSchemas::default()) else {
        panic!("no schema for {kind}");
    };
    let mut doc = flate::yaml::parse_one(yaml).unwrap().to_json();
    strip_nulls(&mut doc);
    errors(&validator, &doc)
}

#[test]
fn kustomization_files() {
    let ok = "apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: apps
resources: [./a.yaml, ../base]
components: [../../components/replacements]
patches:
  - path: ./patches/a.yaml
    target: {group: kustomize.toolkit.fluxcd.io, kind: Kustomization, name: a}
  - patch: |-
      - op: add
    options: {allowNameChange: true}
configMapGenerator:
  - name: settings
    behavior: merge
    literals: [A=b]
    options: {disableNameSuffixHash: true}
images: [{name: nginx, newTag: '1.27'}]
replicas: [{name: web, count: 2}]
replacements:
  - source: {kind: Namespace, fieldPath: metadata.name}
    targets:
      - select: {group: kustomize.toolkit.fluxcd.io, kind: Kustomization}
        fieldPaths: [spec.targetNamespace]
        options: {create: true}
labels: [{pairs: {a: b}, includeSelectors: false}]
";
    assert_eq!(kustomization_file(ok, "Kustomization"), vec![]);
    let e = kustomization_file(
        &ok.replace("    target: {group", "    targets: {group"),
        "Kustomization",
    );
    assert_eq!(e[0].path, "patches[0].targets", "{e:?}");
    assert!(e[0].message.contains("unknown field"));
    let e = kustomization_file(&ok.replace("count: 2", "count: two"), "Kustomization");
    assert_eq!(e[0].path, "replicas[0].count");
    let e = kustomization_file(
        &ok.replace("newTag: '1.27'", "newTag: 1.27"),
        "Kustomization",
    );
    assert_eq!(e[0].path, "images[0].newTag", "{e:?}");
    let e = kustomization_file(
        &ok.replace("behavior: merge", "behavior: Merge"),
        "Kustomization",
    );
    assert!(e[0].message.contains("is not one of"), "{e:?}");
    let e = kustomization_file("resources: [a.yaml]\nresource: [b.yaml]\n", "Kustomization");
    assert_eq!(e[0].path, "resource");

    let component =
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nreplacements: []\n";
    assert_eq!(kustomization_file(component, "Component"), vec![]);
    assert!(!kustomization_file("replacements: []\n", "Component").is_empty());
}

/// Follows a dotted path (`[]` for items) through a schema's properties,
/// `$ref`s and `items`.
fn has_path(schema: &Value, path: &str) -> bool {
    let defs = &schema["$defs"];
    let resolve = |s: &Value| -> Value {
        let mut s = s.clone();
        for _ in 0..10 {
            match s.get("$ref").and_then(Value::as_str) {
                Some(r) => s = defs[r.trim_start_matches("#/$defs/")].clone(),
                None => break,
            }
        }
        s
    };
    let mut cur = resolve(schema);
    for part in path.split('.') {
        let (key, items) = match part.strip_suffix("[]") {
            Some(k) => (k, true),
            None => (part, false),
        };
        let next = &cur["properties"][key];
        if next.is_null() {
            return false;
        }
        cur = resolve(next);
        if items {
            cur = resolve(&cur["items"]);
            if cur.is_null() {
                return false;
            }
        }
    }
    true
}

#[test]
fn flux_schemas_have_every_field_the_flux_layer_reads() {
    let schema = |api: &str, kind: &str| -> Value {
        let (_, _, text) = flate::check::schema::EMBEDDED
            .iter()
            .find(|(a, k, _)| *a == api && *k == kind)
            .unwrap();
        serde_json::from_str(text).unwrap()
    };
    // src/flux/model.rs (FluxKustomization::from_resource) and the renderer.
    let ks = schema("kustomize.toolkit.fluxcd.io/v1", "Kustomization");
    for p in [
        "metadata.name",
        "metadata.namespace",
        "spec.path",
        "spec.sourceRef.kind",
        "spec.sourceRef.name",
        "spec.sourceRef.namespace",
        "spec.suspend",
        "spec.dependsOn[].name",
        "spec.dependsOn[].namespace",
        "spec.postBuild.substitute",
        "spec.postBuild.substituteFrom[].kind",
        "spec.postBuild.substituteFrom[].name",
        "spec.postBuild.substituteFrom[].optional",
        "spec.targetNamespace",
        "spec.namePrefix",
        "spec.nameSuffix",
        "spec.patches[].patch",
        "spec.patches[].target.name",
        "spec.images[].newTag",
        "spec.components",
        "spec.ignoreMissingComponents",
        "spec.commonMetadata.labels",
    ] {
        assert!(has_path(&ks, p), "Kustomization schema lacks {p}");
    }
    assert!(!has_path(&ks, "spec.nope"));
    // src/flux/helm.rs.
    let hr = schema("helm.toolkit.fluxcd.io/v2", "HelmRelease");
    for p in [
        "spec.chartRef.kind",
        "spec.chartRef.name",
        "spec.chartRef.namespace",
        "spec.chart.spec.chart",
        "spec.chart.spec.version",
        "spec.chart.spec.sourceRef.kind",
        "spec.chart.spec.sourceRef.name",
        "spec.chart.spec.sourceRef.namespace",
        "spec.valuesFrom[].kind",
        "spec.valuesFrom[].name",
        "spec.valuesFrom[].valuesKey",
        "spec.valuesFrom[].optional",
        "spec.valuesFrom[].targetPath",
        "spec.values",
        "spec.dependsOn[].name",
    ] {
        assert!(has_path(&hr, p), "HelmRelease schema lacks {p}");
    }
    let oci = schema("source.toolkit.fluxcd.io/v1", "OCIRepository");
    for p in [
        "spec.url",
        "spec.ref.tag",
        "spec.ref.digest",
        "spec.ref.semver",
    ] {
        assert!(has_path(&oci, p), "OCIRepository schema lacks {p}");
    }
    let chart = schema("source.toolkit.fluxcd.io/v1", "HelmChart");
    for p in [
        "spec.chart",
        "spec.version",
        "spec.sourceRef.kind",
        "spec.sourceRef.name",
    ] {
        assert!(has_path(&chart, p), "HelmChart schema lacks {p}");
    }
    let git = schema("source.toolkit.fluxcd.io/v1", "GitRepository");
    assert!(has_path(&git, "spec.url") && has_path(&git, "spec.ref.branch"));
    let repo = schema("source.toolkit.fluxcd.io/v1", "HelmRepository");
    assert!(has_path(&repo, "spec.url") && has_path(&repo, "spec.type"));
}

#[test]
fn typed_models_read_the_example_tree() {
    // The serde models the schemas are generated from deserialize every
    // Flux object of the example tree (unknown fields are errors there too).
    use flate::check::flux_types as f;
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let r = flate::flux::render(
        &flate::fs::RealFs,
        &repo,
        "kubernetes/clusters/production",
        "production",
        &Default::default(),
    )
    .unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for (_, o) in r.all_objects() {
        let v = o.obj.to_json();
        let res = match (o.api_version(), o.kind()) {
            ("kustomize.toolkit.fluxcd.io/v1", "Kustomization") => {
                serde_json::from_value::<f::Kustomization>(v).map(|_| ())
            }
            ("helm.toolkit.fluxcd.io/v2", "HelmRelease") => {
                serde_json::from_value::<f::HelmRelease>(v).map(|_| ())
            }
            ("source.toolkit.fluxcd.io/v1", "OCIRepository") => {
                serde_json::from_value::<f::OciRepository>(v).map(|_| ())
            }
            _ => continue,
        };
        assert!(res.is_ok(), "{} {}: {res:?}", o.kind(), o.name());
        seen.insert(o.kind().to_string());
    }
    assert_eq!(seen.len(), 3, "{seen:?}");
}

const SERVICE_MONITOR_CRD: &str = r#"# A ServiceMonitor CRD shaped like prometheus-operator's (trimmed).
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  annotations:
    controller-gen.kubebuilder.io/version: v0.18.0
    operator.prometheus.io/version: 0.84.0
  name: servicemonitors.monitoring.coreos.com
spec:
  group: monitoring.coreos.com
  names:
    categories: [prometheus-operator]
    kind: ServiceMonitor
    listKind: ServiceMonitorList
    plural: servicemonitors
    shortNames: [smon]
    singular: servicemonitor
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        description: ServiceMonitor defines monitoring for a set of services.
        type: object
        properties:
          apiVersion:
            type: string
          kind:
            type: string
          metadata:
            type: object
          spec:
            description: Specification of desired Service selection for target discovery.
            type: object
            properties:
              endpoints:
                type: array
                items:
                  type: object
                  properties:
                    interval:
                      pattern: ^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$
                      type: string
                    path:
                      type: string
                    port:
                      type: string
                    scheme:
                      enum: [http, https]
                      type: string
                    targetPort:
                      anyOf:
                      - type: integer
                      - type: string
                      x-kubernetes-int-or-string: true
                    honorLabels:
                      default: false
                      type: boolean
                    relabelings:
                      type: array
                      items:
                        type: object
                        # required, but the API server fills `action` in
                        required: [action, targetLabel]
                        properties:
                          action:
                            default: replace
                            enum: [replace, keep, drop, labelmap]
                            type: string
                          sourceLabels:
                            type: array
                            items:
                              pattern: ^[a-zA-Z_][a-zA-Z0-9_]*$
                              type: string
                          targetLabel:
                            type: string
              jobLabel:
                type: string
              sampleLimit:
                format: int64
                type: integer
                minimum: 0
              namespaceSelector:
                type: object
                properties:
                  any:
                    type: boolean
                  matchNames:
                    type: array
                    items:
                      type: string
              selector:
                type: object
                properties:
                  matchLabels:
                    additionalProperties:
                      type: string
                    type: object
                  matchExpressions:
                    type: array
                    items:
                      type: object
                      required: [key, operator]
                      properties:
                        key:
                          type: string
                        operator:
                          type: string
                        values:
                          type: array
                          items:
                            type: string
                x-kubernetes-map-type: atomic
              attachMetadata:
                nullable: true
                type: object
                properties:
                  node:
                    type: boolean
              extra:
                type: object
                x-kubernetes-preserve-unknown-fields: true
            required: [selector]
            x-kubernetes-validations:
            - rule: self.sampleLimit >= 0
          status:
            type: object
            x-kubernetes-preserve-unknown-fields: true
        required: [spec]
  - name: v1alpha1
    served: false
    storage: false
    schema:
      openAPIV3Schema:
        type: object
"#;

const SERVICE_MONITOR: &str = "apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: web
  namespace: default
  labels: {release: prometheus}
spec:
  jobLabel: app
  selector:
    matchLabels: {app: web}
  namespaceSelector: {matchNames: [default]}
  attachMetadata: null
  endpoints:
    - port: http
      targetPort: 8080
      interval: 30s
      scheme: https
      relabelings:
        - sourceLabels: [__meta_kubernetes_pod_name]
          targetLabel: pod
    - targetPort: metrics
  extra: {anything: [1, 2]}
";

fn flate(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_flate"))
        .args(args)
        .output()
        .expect("run flate")
}

fn validator_for(path: &Path) -> jsonschema::Validator {
    jsonschema::validator_for(&read_schema_file(path).unwrap()).unwrap()
}

fn errs(v: &jsonschema::Validator, yaml: &str) -> Vec<String> {
    let mut doc = flate::yaml::parse_one(yaml).unwrap().to_json();
    strip_nulls(&mut doc);
    v.iter_errors(&doc)
        .map(|e| format!("{} {e}", e.instance_path()))
        .collect()
}

#[test]
fn schemas_import_of_a_crd() {
    let d = common::scratch("schemas-import");
    let crd = d.join("crd.yaml");
    std::fs::write(&crd, SERVICE_MONITOR_CRD).unwrap();
    let out = d.join("schemas");
    let o = flate(&[
        "schemas",
        "import",
        crd.to_str().unwrap(),
        "--out-dir",
        out.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // One file per served version.
    let file = out.join("monitoring.coreos.com/servicemonitor_v1.json");
    assert!(file.is_file());
    assert!(
        !out.join("monitoring.coreos.com/servicemonitor_v1alpha1.json")
            .exists()
    );
    let v = validator_for(&file);
    assert_eq!(errs(&v, SERVICE_MONITOR), Vec::<String>::new());
    for (from, to, want) in [
        (
            "targetPort: 8080",
            "targetPort: [8080]",
            "/spec/endpoints/0/targetPort",
        ),
        (
            "interval: 30s",
            "interval: 30 seconds",
            "/spec/endpoints/0/interval",
        ),
        ("scheme: https", "scheme: HTTPS", "/spec/endpoints/0/scheme"),
        (
            "  jobLabel: app\n",
            "  jobLabel: app\n  jobLabels: app\n",
            "/spec",
        ),
        ("  selector:\n    matchLabels: {app: web}\n", "", "/spec"),
        (
            "labels: {release: prometheus}",
            "labels: {release: 1}",
            "/metadata/labels/release",
        ),
        ("kind: ServiceMonitor", "kind: PodMonitor", "/kind"),
        (
            "targetLabel: pod",
            "targetLabel: 7",
            "/spec/endpoints/0/relabelings/0/targetLabel",
        ),
        (
            "          targetLabel: pod\n",
            "",
            "/spec/endpoints/0/relabelings/0",
        ),
    ] {
        let bad = SERVICE_MONITOR.replace(from, to);
        assert_ne!(bad, SERVICE_MONITOR, "{from}");
        let e = errs(&v, &bad);
        assert!(
            e.iter().any(|x| x.starts_with(&format!("{want} "))),
            "{from} -> {to}: expected an error at {want}, got {e:?}"
        );
    }
    // A file with no CRD, or a missing file, is a usage error.
    std::fs::write(
        d.join("none.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
    )
    .unwrap();
    let o = flate(&[
        "schemas",
        "import",
        d.join("none.yaml").to_str().unwrap(),
        "--out-dir",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
}

/// A one-environment repository rendering a ServiceMonitor.
fn monitor_repo(d: &Path, monitor: &str) {
    let w = |p: &str, t: &str| {
        let p = d.join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, t).unwrap();
    };
    w(
        "kubernetes/clusters/test/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [monitor.yaml]\n",
    );
    w("kubernetes/clusters/test/monitor.yaml", monitor);
}

fn check_json(repo: &Path, args: &[&str]) -> (i32, Value) {
    let mut all = vec!["check", "--repo", repo.to_str().unwrap(), "-o", "json"];
    all.extend_from_slice(args);
    let o = flate(&all);
    (
        o.status.code().unwrap_or(-1),
        serde_json::from_slice(&o.stdout).unwrap(),
    )
}

fn rules(js: &Value) -> Vec<String> {
    js["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn schema_locations_dirs_templates_and_the_repository_default() {
    let d = common::scratch("schemas-locations");
    let crd = d.join("crd.yaml");
    std::fs::write(&crd, SERVICE_MONITOR_CRD).unwrap();
    let cat = d.join("catalog");
    let o = flate(&[
        "schemas",
        "import",
        crd.to_str().unwrap(),
        "--out-dir",
        cat.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    let repo = d.join("repo");
    let bad_monitor = SERVICE_MONITOR.replace("scheme: https", "scheme: HTTPS");
    monitor_repo(&repo, &bad_monitor);

    // No schema: listed, not failed.
    let (code, js) = check_json(&repo, &[]);
    assert_eq!(code, 0);
    assert_eq!(rules(&js), vec!["schema-missing"]);
    assert_eq!(js["noSchema"][0]["kind"], "ServiceMonitor");

    // A catalog directory, a kubeconform template, a kubeconform layout.
    let tpl = format!(
        "{}/{{{{.Group}}}}/{{{{ .ResourceKind }}}}_{{{{.ResourceAPIVersion}}}}.json",
        cat.display()
    );
    let kc = d.join("kubeconform");
    std::fs::create_dir_all(kc.join("master-standalone")).unwrap();
    std::fs::copy(
        cat.join("monitoring.coreos.com/servicemonitor_v1.json"),
        kc.join("master-standalone/servicemonitor-monitoring-v1.json"),
    )
    .unwrap();
    for loc in [cat.display().to_string(), tpl, kc.display().to_string()] {
        let (code, js) = check_json(&repo, &["--schema-dir", &loc]);
        assert_eq!(code, 1, "{loc}: {js:#}");
        let f = &js["findings"][0];
        assert_eq!(f["rule"], "schema-invalid", "{loc}: {js:#}");
        assert_eq!(f["path"], "spec.endpoints[0].scheme");
        assert_eq!(f["file"], "kubernetes/clusters/test/monitor.yaml");
        assert_eq!(f["line"], 17);
    }

    // `.flate/schemas` in the repository is read without a flag.
    let o = flate(&[
        "schemas",
        "import",
        crd.to_str().unwrap(),
        "--repo",
        repo.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        repo.join(".flate/schemas/monitoring.coreos.com/servicemonitor_v1.json")
            .is_file()
    );
    let (code, js) = check_json(&repo, &[]);
    assert_eq!((code, rules(&js)), (1, vec!["schema-invalid".to_string()]));
    monitor_repo(&repo, SERVICE_MONITOR);
    let (code, js) = check_json(&repo, &[]);
    assert_eq!((code, rules(&js)), (0, vec![]), "{js:#}");

    // A CRD rendered in the environment validates its objects too.
    let repo2 = d.join("repo2");
    monitor_repo(&repo2, &format!("{SERVICE_MONITOR_CRD}---\n{bad_monitor}"));
    let (code, js) = check_json(&repo2, &[]);
    assert_eq!(
        (code, rules(&js)),
        (1, vec!["schema-invalid".to_string()]),
        "{js:#}"
    );
}

#[test]
fn embedded_bundle_covers_the_pinned_kubernetes_version() {
    let k = flate::check::schema::kubernetes().unwrap();
    for kind in [
        "v1/Pod",
        "v1/Service",
        "apps/v1/Deployment",
        "batch/v1/CronJob",
        "networking.k8s.io/v1/Ingress",
        "networking.k8s.io/v1/ServiceCIDR",
        "rbac.authorization.k8s.io/v1/ClusterRole",
        "apiextensions.k8s.io/v1/CustomResourceDefinition",
        "policy/v1/PodDisruptionBudget",
        "autoscaling/v2/HorizontalPodAutoscaler",
    ] {
        assert!(k.kinds.contains_key(kind), "{kind}");
    }
    assert_eq!(flate::check::schema::KUBERNETES_VERSION, "1.36");
    let _ = json!(null);
}

/// A string field that substitution made a number: the schema error says
/// why when the field's line is written with `${...}`, and only then.
#[test]
fn a_substituted_number_in_a_string_field_is_explained() {
    let d = common::scratch("schemas-substituted-number");
    let w = |p: &str, t: &str| {
        let p = d.join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, t).unwrap();
    };
    w(
        "kubernetes/clusters/test/app.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: app\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./kubernetes/app\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n  postBuild:\n    substitute:\n      COUNT: \"3\"\n",
    );
    w(
        "kubernetes/app/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: default\ndata:\n  count: ${COUNT}\n  written: 4\n",
    );
    let (code, js) = check_json(&d, &["--path", "kubernetes/clusters/test"]);
    assert_eq!(code, 1, "{js}");
    let messages: Vec<&str> = js["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "schema-invalid")
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert_eq!(messages.len(), 2, "{messages:?}");
    let hint = "Flux reads the substituted text as YAML";
    let count = messages.iter().find(|m| m.contains("data.count")).unwrap();
    let written = messages
        .iter()
        .find(|m| m.contains("data.written"))
        .unwrap();
    assert!(count.contains(hint), "{count}");
    assert!(!written.contains(hint), "{written}");
}

/// A kustomization file's field names match ignoring case, as kustomize
/// reads them (Go's encoding/json): `configMapgenerator` is
/// `configMapGenerator`, not an unknown field; a name that is no field in
/// any case still is.
#[test]
fn kustomization_file_fields_match_ignoring_case() {
    let d = common::scratch("schemas-field-case");
    let w = |p: &str, t: &str| {
        let p = d.join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, t).unwrap();
    };
    let kfile = |generator: &str| {
        format!(
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n{generator}:\n  - name: settings\n    literals: [A=b]\n    Options: {{disableNameSuffixHash: true}}\n"
        )
    };
    w(
        "kubernetes/clusters/test/kustomization.yaml",
        &kfile("configMapgenerator"),
    );
    let (code, js) = check_json(&d, &[]);
    assert_eq!(code, 0, "{js:#}");
    assert!(
        !rules(&js).contains(&"schema-invalid".to_string()),
        "{js:#}"
    );
    // kubectl builds it as configMapGenerator.
    let o = flate(&[
        "kustomize",
        "build",
        d.join("kubernetes/clusters/test").to_str().unwrap(),
    ]);
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("name: settings\n"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    w(
        "kubernetes/clusters/test/kustomization.yaml",
        &kfile("configMapGenerators"),
    );
    let (code, js) = check_json(&d, &[]);
    assert_eq!(code, 1);
    assert!(rules(&js).contains(&"schema-invalid".to_string()), "{js:#}");
}
