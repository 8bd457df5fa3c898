//! Templates parsed ahead, on the thread pool, while the chart is still
//! being loaded and its values made (see [`super::load_parsing_ahead`]).
//! On a large chart, parsing the templates is a third of the work, and
//! loading the chart and making its values (walking its directory, reading
//! its values and schema, processing its dependencies, coalescing,
//! validating) a quarter, each on one thread: side by side, a render takes
//! about the longer of the two, not their sum.
//!
//! The queue takes the templates of every subchart directory that no
//! condition, tag or alias may leave out as the walk of the chart's
//! directory finds them (app-template's are all in its `common`
//! subchart), the top chart's templates and those of such archived
//! subcharts when they are loaded, and those of the subcharts the values
//! enable once the render knows them. The render then parses what is left alongside the job
//! ([`Ahead::finish`]) before it reads the cache. Results go to the
//! chart's cache of parsed templates, under the names the render looks
//! them up by: a parse error is cached as any result, and reported by the
//! render in its order; a template that cannot be read is not cached (the
//! render reads it again, and reports that).
//!
//! A job on the pool, not a thread of its own: measured on
//! kube-prometheus-stack, loki and app-template, a thread started for it
//! made renders slower than no parsing ahead at all, the pool's faster.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use super::{ParseCache, TemplateFile};

/// The first job starts once this many bytes of templates are queued:
/// below it, starting the thread pool costs more than it saves.
const JOB_BYTES: usize = 64 * 1024;

impl std::fmt::Debug for Ahead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Ahead")
    }
}

pub(crate) struct Ahead {
    state: Mutex<State>,
    /// Signalled when the job has parsed a template.
    finished_one: Condvar,
    cache: ParseCache,
}

#[derive(Default)]
struct State {
    todo: VecDeque<(String, TemplateFile)>,
    queued_bytes: usize,
    /// A job parsing the queue was started (it ever was).
    started: bool,
    /// A job is parsing the queue now.
    running: bool,
    /// Templates the job is parsing (0 or 1).
    busy: usize,
    /// The render waits in [`Ahead::finish`] for the job's template: only
    /// then is the job's end of a template signalled (a signal nobody
    /// waits for is still a system call, one per template).
    waiting: bool,
    closed: bool,
}

impl Ahead {
    pub(crate) fn new(cache: ParseCache) -> Arc<Ahead> {
        Arc::new(Ahead {
            state: Mutex::new(State::default()),
            finished_one: Condvar::new(),
            cache,
        })
    }

    /// The cache results go to.
    pub(crate) fn cache(&self) -> ParseCache {
        Arc::clone(&self.cache)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A thread that panicked while holding the lock left the queue as
        // it was: still a queue.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues templates (full name, file), and starts a job on the thread
    /// pool to parse them when enough have been queued (the job ends when
    /// the queue is empty; the next templates queued start another).
    pub(crate) fn push(self: &Arc<Self>, items: Vec<(String, TemplateFile)>) {
        if items.is_empty() {
            return;
        }
        let mut st = self.lock();
        if st.closed {
            return;
        }
        st.queued_bytes += items.iter().map(|(_, t)| t.data.size()).sum::<usize>();
        st.todo.extend(items);
        if !st.running && (st.started || st.queued_bytes >= JOB_BYTES) {
            st.started = true;
            st.running = true;
            let me = Arc::clone(self);
            rayon::spawn(move || me.run());
        }
    }

    /// The next template to parse, `None` once the queue is empty; for the
    /// job (`job`), counted as being parsed, and the job marked ended when
    /// there is none.
    fn next(&self, job: bool) -> Option<(String, TemplateFile)> {
        let mut st = self.lock();
        let item = st.todo.pop_front();
        if job {
            match item {
                Some(_) => st.busy += 1,
                None => st.running = false,
            }
        }
        item
    }

    fn parse(&self, (name, file): &(String, TemplateFile)) {
        // An error is the render's to report, when it gets there.
        let _ = super::render::parse_into(&self.cache, name, file);
    }

    /// The job: parses what is queued until the queue is empty.
    fn run(&self) {
        while let Some(item) = self.next(true) {
            self.parse(&item);
            let mut st = self.lock();
            st.busy -= 1;
            if st.waiting {
                self.finished_one.notify_all();
            }
        }
    }

    /// Parses, alongside the job, what is still queued, and returns when
    /// everything queued is in the cache (or could not be read). The queue
    /// is closed then: what the render still lacks, it parses itself. When
    /// no job started (too little was queued), the render parses
    /// everything queued.
    pub(crate) fn finish(&self) {
        if self.lock().started {
            while let Some(item) = self.next(false) {
                self.parse(&item);
            }
        }
        let mut st = self.lock();
        st.closed = true;
        st.todo.clear();
        while st.busy > 0 {
            st.waiting = true;
            st = self
                .finished_one
                .wait(st)
                .unwrap_or_else(|e| e.into_inner());
        }
        st.waiting = false;
    }

    /// Closes the queue (the chart is dropped): a job ends after the
    /// template it is parsing.
    pub(crate) fn close(&self) {
        let mut st = self.lock();
        st.closed = true;
        st.todo.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::super::{RenderOptions, load, load_parsing_ahead, print_template, render};

    fn write(root: &std::path::Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// A chart with enough template text for the job to start: the top
    /// chart's, a subchart always rendered, one a condition disables, one
    /// under an alias, a library subchart.
    fn chart(root: &std::path::Path) {
        let w = |rel: &str, text: &str| write(root, rel, text);
        w(
            "Chart.yaml",
            "apiVersion: v2\nname: top\nversion: 1.0.0\ndependencies:\n- name: always\n  version: 1.0.0\n- name: maybe\n  version: 1.0.0\n  condition: maybe.enabled\n- name: named\n  version: 1.0.0\n  alias: other\n- name: lib\n  version: 1.0.0\n",
        );
        w("values.yaml", "maybe:\n  enabled: false\nn: 3\n");
        let pad = format!("{{{{/* {} */}}}}\n", "padding ".repeat(10_000));
        w(
            "templates/big.yaml",
            &format!(
                "{pad}kind: ConfigMap\nmetadata:\n  name: {{{{ include \"lib.name\" . }}}}\ndata:\n  n: {{{{ .Values.n | quote }}}}\n"
            ),
        );
        w("templates/_helpers.tpl", "{{ define \"top.x\" }}x{{ end }}");
        for sub in ["always", "maybe", "named"] {
            w(
                &format!("charts/{sub}/Chart.yaml"),
                &format!("apiVersion: v2\nname: {sub}\nversion: 1.0.0\n"),
            );
            w(
                &format!("charts/{sub}/templates/s.yaml"),
                "kind: Secret\nmetadata:\n  name: {{ .Chart.Name }}-{{ template \"top.x\" }}\n",
            );
        }
        w(
            "charts/lib/Chart.yaml",
            "apiVersion: v2\nname: lib\nversion: 1.0.0\ntype: library\n",
        );
        w(
            "charts/lib/templates/_name.tpl",
            "{{ define \"lib.name\" }}{{ .Release.Name }}-lib{{ end }}",
        );
        w("charts/lib/templates/never.yaml", "kind: Never\n");
        // A subchart of a subchart, found by the same walk.
        w(
            "charts/always/charts/deep/Chart.yaml",
            "apiVersion: v2\nname: deep\nversion: 1.0.0\n",
        );
        w(
            "charts/always/charts/deep/templates/d.yaml",
            "kind: Deep\nmetadata:\n  name: {{ .Chart.Name }}\n",
        );
    }

    fn rendered(c: &super::super::Chart, values: &str) -> String {
        let opts = RenderOptions {
            release_name: "r".into(),
            values: crate::yaml::parse_one(values).unwrap(),
            ..Default::default()
        };
        match render(c, &opts) {
            Ok(r) => print_template(&r),
            Err(e) => format!("error: {}", e.message),
        }
    }

    #[test]
    fn templates_parsed_ahead_render_as_those_parsed_by_the_render() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        chart(root);
        let ahead = load_parsing_ahead(root).unwrap();
        // What the job parsed at load: the top chart's templates and those
        // of the subcharts rendered whatever the values (a library's
        // partials only); not those of a subchart a condition or an alias
        // concerns.
        ahead.ahead.as_ref().unwrap().finish();
        let parsed: Vec<String> = ahead.parsed.lock().unwrap().keys().cloned().collect();
        assert_eq!(
            parsed,
            [
                "top/charts/always/charts/deep/templates/d.yaml",
                "top/charts/always/templates/s.yaml",
                "top/charts/lib/templates/_name.tpl",
                "top/templates/_helpers.tpl",
                "top/templates/big.yaml",
            ]
        );
        // The disabled subchart's template is never read.
        std::fs::remove_file(root.join("charts/maybe/templates/s.yaml")).unwrap();
        let out = rendered(&ahead, "{}");
        assert!(out.contains("name: always-x"), "{out}");
        assert!(out.contains("name: other-x"), "{out}");
        assert!(out.contains("name: r-lib"), "{out}");
        assert!(out.contains("kind: Deep\nmetadata:\n  name: deep"), "{out}");
        assert!(!out.contains("maybe") && !out.contains("Never"), "{out}");
        write(
            root,
            "charts/maybe/templates/s.yaml",
            "kind: Secret\nmetadata:\n  name: {{ .Chart.Name }}-{{ template \"top.x\" }}\n",
        );
        let plain = load(root).unwrap();
        assert_eq!(out, rendered(&plain, "{}"));
        // Enabled by the values: parsed (by the render) and rendered, as
        // by a chart loaded without parsing ahead.
        let fresh = load_parsing_ahead(root).unwrap();
        let enabled = rendered(&fresh, "maybe:\n  enabled: true\n");
        assert!(enabled.contains("name: maybe-x"), "{enabled}");
        assert_eq!(enabled, rendered(&plain, "maybe:\n  enabled: true\n"));
    }

    #[test]
    fn a_chart_that_fails_to_load_fails_as_without_parsing_ahead() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        chart(root);
        // The top chart's templates are queued before the subchart fails.
        write(
            root,
            "charts/named/Chart.yaml",
            "apiVersion: v2\nversion: 1.0.0\n",
        );
        let plain = load(root).unwrap_err();
        assert!(plain.message.contains("named"), "{}", plain.message);
        let ahead = load_parsing_ahead(root).unwrap_err();
        assert_eq!(ahead.message, plain.message);
        assert_eq!(ahead.path, plain.path);
    }

    #[test]
    fn a_template_that_fails_to_parse_ahead_fails_the_render_as_it_would() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        chart(root);
        write(root, "templates/bad.yaml", "a: {{ if .Values.n }}\n");
        write(
            root,
            "charts/always/templates/bad.yaml",
            "{{ nosuchfunc 1 }}\n",
        );
        let plain = rendered(&load(root).unwrap(), "{}");
        assert!(plain.starts_with("error: parse error at"), "{plain}");
        assert_eq!(rendered(&load_parsing_ahead(root).unwrap(), "{}"), plain);
        std::fs::remove_file(root.join("charts/always/templates/bad.yaml")).unwrap();
        let plain = rendered(&load(root).unwrap(), "{}");
        assert!(plain.contains("top/templates/bad.yaml"), "{plain}");
        assert_eq!(rendered(&load_parsing_ahead(root).unwrap(), "{}"), plain);
    }
}
