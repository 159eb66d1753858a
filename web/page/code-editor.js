// The code editor over the input: CodeMirror 6 (npm, served from node_modules through
// index.html's import map), with line numbers, bracket matching, JSON highlighting and the
// report's errors marked in the text. The textarea #input stays the page's model: this editor
// mirrors it both ways, so everything else reads and writes #input as before. When CodeMirror
// cannot load (or the page is opened with ?editor=plain) the textarea is simply shown.

const textarea = () => document.getElementById("input");

const editor = { view: null, cm: null, onCheck: null };
let fromPage = null;  // marks the text set by the page (not typed): it is not mirrored back as an edit

export const active = () => editor.view !== null;

// The editor's text put in the textarea, which then says "input" as typing in it would.
function mirrorToTextarea(text) {
  const area = textarea();
  if (area.value === text) return;
  area.value = text;
  area.dispatchEvent(new Event("input", { bubbles: true }));
}

// The page's colours (style.css's variables, inherited into the shadow root), both schemes.
const THEME = {
  "&": { border: "1px solid var(--line)", borderRadius: ".3rem", background: "var(--paper)", color: "var(--ink)", fontSize: ".9rem" },
  ".cm-scroller": { fontFamily: 'ui-monospace, "DejaVu Sans Mono", monospace', minHeight: "14rem", lineHeight: "1.5" },
  ".cm-content": { caretColor: "var(--ink)" },
  ".cm-gutters": { background: "var(--panel)", color: "var(--muted)", borderRight: "1px solid var(--line)" },
  ".cm-activeLineGutter": { background: "var(--room)", color: "var(--ink)" },
  "&.cm-focused": { outline: "3px solid var(--focus)", outlineOffset: "2px" },
  "&.cm-focused .cm-matchingBracket": { background: "var(--current)", outline: "1px solid var(--ink)" },
  ".cm-lintRange-error": { backgroundImage: "none", textDecoration: "wavy underline var(--fail) 2px", backgroundColor: "var(--fail-soft)" },
  ".cm-tooltip": { background: "var(--paper)", color: "var(--ink)", border: "1px solid var(--line)" },
  ".cm-diagnostic-error": { borderLeft: "5px solid var(--fail)" },
};

// JSON's parts in the page's code colours (style.css: at least 4.5:1 in both schemes).
function highlighting(cm) {
  const { tags } = cm.highlight;
  return cm.language.HighlightStyle.define([
    { tag: tags.propertyName, color: "var(--code-key)" },
    { tag: tags.string, color: "var(--code-string)" },
    { tag: tags.number, color: "var(--code-number)" },
    { tag: [tags.bool, tags.null], color: "var(--code-literal)" },
    { tag: tags.invalid, color: "var(--fail)" },
  ]);
}

export async function startCodeEditor({ onCheck }) {
  if (new URLSearchParams(location.search).get("editor") === "plain") return false;
  let cm;
  try {
    const [state, view, language, commands, lint, json, highlight] = await Promise.all([
      import("@codemirror/state"), import("@codemirror/view"), import("@codemirror/language"),
      import("@codemirror/commands"), import("@codemirror/lint"), import("@codemirror/lang-json"), import("@lezer/highlight"),
    ]);
    cm = { state, view, language, commands, lint, json, highlight };
  } catch (error) {
    document.getElementById("editor-note").textContent = "The code editor could not load; this is a plain text box.";
    return false;
  }
  editor.cm = cm;
  editor.onCheck = onCheck;
  fromPage = cm.state.Annotation.define();
  const { EditorView, keymap, lineNumbers, highlightActiveLineGutter, drawSelection } = cm.view;
  const area = textarea();
  const host = document.getElementById("code-editor");
  // In a shadow root: CodeMirror's styles then go into a constructed style sheet, which the
  // page's Content-Security-Policy (style-src 'self', no inline styles) allows; a <style>
  // element in the document would be refused. The page's colour variables reach inside.
  const shadow = host.shadowRoot || host.attachShadow({ mode: "open" });
  const view = new EditorView({
    parent: shadow,
    root: shadow,
    state: cm.state.EditorState.create({
      doc: area.value,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        drawSelection(),
        cm.commands.history(),
        cm.language.bracketMatching(),
        cm.language.indentOnInput(),
        cm.language.syntaxHighlighting(highlighting(cm)),
        cm.json.json(),
        cm.lint.lintGutter(),
        EditorView.lineWrapping,
        EditorView.theme(THEME),
        keymap.of([
          { key: "Mod-Enter", run: () => { editor.onCheck(); return true; } },
          cm.commands.indentWithTab,
          ...cm.commands.defaultKeymap,
          ...cm.commands.historyKeymap,
        ]),
        EditorView.contentAttributes.of({
          "aria-label": "Input JSON", "aria-describedby": "input-help syntax-error", "data-testid": "code-input",
          spellcheck: "false", autocapitalize: "off", autocorrect: "off",
        }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged && !update.transactions.some((tr) => tr.annotation(fromPage))) mirrorToTextarea(update.state.doc.toString());
        }),
      ],
    }),
  });
  editor.view = view;
  area.hidden = true;
  host.hidden = false;
  document.body.dataset.editor = "code";
  return true;
}


// The page replaced the textarea's text (an example, the slider, a link, Format).
export function setText(text) {
  if (!active()) return;
  const view = editor.view;
  if (view.state.doc.toString() === text) return;
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text }, annotations: fromPage.of(true) });
}

// Select start..end (indices into the text) and show it.
export function select(start, end) {
  if (!active()) return false;
  const view = editor.view;
  const length = view.state.doc.length;
  const anchor = Math.min(start, length);
  view.dispatch({ selection: { anchor, head: Math.min(Math.max(start, end), length) }, scrollIntoView: true });
  view.focus();
  view.dom.scrollIntoView({ block: "nearest" });
  return true;
}

// The report's problems in the text: `marks` is [{from, to, message}], indices into the text.
export function markProblems(marks) {
  if (!active()) return;
  const view = editor.view;
  const length = view.state.doc.length;
  const diagnostics = marks.map(({ from, to, message }) => {
    const start = Math.max(0, Math.min(from, length));
    return { from: start, to: Math.max(start, Math.min(Math.max(to, start + 1), length)), severity: "error", message };
  });
  view.dispatch(editor.cm.lint.setDiagnostics(view.state, diagnostics));
}
