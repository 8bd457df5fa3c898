#!/usr/bin/env python3
# Regenerates docs/rules.md from `flate check --list-rules`, the table of
# docs/rules.md (and the prose of each rule's section, kept), and the
# bad/good pairs in fixtures/check (run from the
# repository root after `cargo build`; FLATE names another binary).
import subprocess, os, re
B=os.environ.get('FLATE','target/debug/flate')
rules=subprocess.run([B,'check','--list-rules'],capture_output=True,text=True).stdout.strip().split('\n')
readme=open('docs/rules.md').read() if os.path.exists('docs/rules.md') else open('README.md').read()
table={}
# The prose of each rule's section (between its "Severity:" line and its
# example), kept as written.
prose={}  # rule -> (before its example, after it)
for sec in re.split(r'^## ', readme, flags=re.M)[1:]:
    name,_,body=sec.partition('\n')
    # The text outside fenced blocks: before the first, after the last.
    parts=re.split(r'^```.*?^```$', body, flags=re.M|re.S)
    def keep(t):
        paras=[p for p in t.strip().split('\n\n') if p.strip()
               and not p.startswith('Severity:') and p.strip()!='`flate check` on `bad/`:']
        return '\n\n'.join(paras).strip()
    prose[name.strip()]=(keep(parts[0]), keep(parts[-1]) if len(parts)>1 else '')
for l in readme.split('\n'):
    m=re.match(r'\| \[?`([a-z-]+)`(?:\]\(#[a-z-]+\))? \| (\w+) \| (.*) \|$',l)
    if m: table[m.group(1)]=(m.group(2),m.group(3))
out=['# Check rules','',
'`flate check` renders every environment and runs these rules on the result',
'(`flate check --list-rules` prints them). Each rule has a pair of small',
'repositories in `fixtures/check/RULE/`: `bad/` triggers it and `good/` is',
'the same tree fixed; `tests/check_lints.rs` runs them. The examples below',
'are the difference between the two (`-` bad, `+` good) and what',
'`flate check` prints for `bad/`.','',
'Turn a rule off for the repository with `check.disable` in',
'`.flate.yaml` or `--disable ID`, or for one object with an annotation',
'(on the object, or on the Flux Kustomization a rule is about):','',
'```yaml','metadata:','  annotations:','    flate.dev/disable: image-unpinned,duplicate-object','```','',
'| id | severity | finds |','| --- | --- | --- |']
ids=[]
for l in rules:
    rid=l.split()[0]; ids.append(rid)
    table[rid]=table.get(rid,(l.split()[1],' '.join(l.split()[2:])))
    sev,finds=table[rid]
    out.append(f'| [`{rid}`](#{rid}) | {sev} | {finds} |')
out.append('')
for rid in ids:
    d=f'fixtures/check/{rid}'
    out.append(f'## {rid}')
    out.append('')
    sev,finds=table.get(rid,('',''))
    out.append(f'Severity: {sev}. Finds {finds[0].lower()+finds[1:] if finds else ""}.')
    out.append('')
    before,after=prose.get(rid,('',''))
    if before:
        out.append(before); out.append('')
    if not os.path.isdir(d):
        if after:
            out.append(after); out.append('')
        continue
    diff=subprocess.run(['diff','-ru','bad','good'],cwd=d,capture_output=True,text=True).stdout
    diff='\n'.join(l for l in diff.split('\n') if not l.startswith('diff -ru'))
    diff=re.sub(r'^(---|\+\+\+) (\S+)\t.*$', r'\1 \2', diff, flags=re.M)
    out.append('```diff'); out.append(diff.rstrip()); out.append('```'); out.append('')
    r=subprocess.run([B,'check','--repo',os.path.join(d,'bad')],capture_output=True,text=True,env=dict(os.environ,NO_COLOR='1'))
    lines=[l for l in r.stdout.split('\n') if f'[{rid}]' in l][:3]
    if lines:
        out.append('`flate check` on `bad/`:'); out.append('')
        out.append('```'); out.extend(lines); out.append('```'); out.append('')
    if after:
        out.append(after); out.append('')
open('docs/rules.md','w').write('\n'.join(out).rstrip()+'\n')
