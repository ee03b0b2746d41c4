// The SQL editor: CodeMirror 6 with DuckDB-flavoured SQL highlighting and
// completion of table and column names. Loaded on demand (React.lazy).
import { autocompletion, closeBrackets, closeBracketsKeymap } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { PostgreSQL, sql, type SQLNamespace } from '@codemirror/lang-sql';
import { bracketMatching, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { Compartment, EditorState, Prec, StateEffect, StateField, type Range } from '@codemirror/state';
import {
  Decoration,
  type DecorationSet,
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
  placeholder,
} from '@codemirror/view';
import { classHighlighter } from '@lezer/highlight';
import { useEffect, useRef } from 'react';
import type { SqlPosition } from './errorPosition';
import '../common/sql.css';
import './console.css';

export interface SqlEditorProps {
  /** The text to start from; a new value (with a new nonce) replaces the text. */
  value: string;
  nonce: number;
  /** Tables and their columns, for completion. */
  schema: Record<string, string[]>;
  onChange: (text: string) => void;
  /** Ctrl/Cmd+Enter. */
  onRun: () => void;
  /** Where the last error is: marked in the text until it changes. */
  errorAt?: SqlPosition | null;
}

const setError = StateEffect.define<SqlPosition | null>();

/** The error's place: its line tinted, the word at the column underlined. */
const errorMark = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(marks, tr) {
    for (const e of tr.effects) if (e.is(setError)) return errorDecorations(tr.state, e.value);
    return tr.docChanged ? Decoration.none : marks;
  },
  provide: (f) => EditorView.decorations.from(f),
});

function errorDecorations(state: EditorState, at: SqlPosition | null): DecorationSet {
  if (!at || at.line < 1 || at.line > state.doc.lines) return Decoration.none;
  const line = state.doc.line(at.line);
  const from = Math.min(line.from + at.column - 1, line.to);
  const word = /^[\w."]+/.exec(state.doc.sliceString(from, line.to))?.[0].length ?? 1;
  const marks: Range<Decoration>[] = [Decoration.line({ class: 'cm-error-line' }).range(line.from)];
  if (from < line.to) marks.push(Decoration.mark({ class: 'cm-error-mark', attributes: { title: 'The error is here' } }).range(from, Math.min(from + word, line.to)));
  return Decoration.set(marks, true);
}

const theme = EditorView.theme({
  '&': { height: '100%', fontSize: '13.5px', backgroundColor: 'transparent' },
  '.cm-content': { fontFamily: 'var(--font-mono)', caretColor: 'var(--accent)', padding: '10px 0' },
  '.cm-gutters': { backgroundColor: 'transparent', color: 'var(--text-faint)', border: 'none' },
  '.cm-activeLine': { backgroundColor: 'var(--row-hover)' },
  '.cm-activeLineGutter': { backgroundColor: 'transparent', color: 'var(--text-muted)' },
  '&.cm-focused': { outline: 'none' },
  '.cm-selectionBackground, &.cm-focused .cm-selectionBackground': { backgroundColor: 'var(--selection) !important' },
  '.cm-cursor': { borderLeftColor: 'var(--accent)' },
  '.cm-tooltip': {
    backgroundColor: 'var(--bg-raised)',
    border: '1px solid var(--border)',
    borderRadius: '8px',
    boxShadow: 'var(--shadow)',
    overflow: 'hidden',
  },
  '.cm-tooltip-autocomplete > ul > li[aria-selected]': { backgroundColor: 'var(--accent)', color: 'var(--accent-text)' },
  '.cm-placeholder': { color: 'var(--text-faint)' },
  '.cm-error-line': { backgroundColor: 'color-mix(in srgb, var(--bad) 10%, transparent)' },
  '.cm-error-mark': { textDecoration: 'underline wavy var(--bad)', textUnderlineOffset: '3px' },
});

export default function SqlEditor({ value, nonce, schema, onChange, onRun, errorAt }: SqlEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const lang = useRef(new Compartment());
  const callbacks = useRef({ onChange, onRun });
  callbacks.current = { onChange, onRun };

  useEffect(() => {
    if (host.current === null) return;
    const v = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: value,
        extensions: [
          lineNumbers(),
          highlightActiveLineGutter(),
          highlightActiveLine(),
          history(),
          drawSelection(),
          indentOnInput(),
          bracketMatching(),
          closeBrackets(),
          autocompletion({ activateOnTyping: true }),
          syntaxHighlighting(classHighlighter),
          lang.current.of(sqlLanguage(schema)),
          placeholder('SELECT … FROM …   (Ctrl+Enter runs)'),
          Prec.highest(
            keymap.of([
              {
                key: 'Mod-Enter',
                run: () => {
                  callbacks.current.onRun();
                  return true;
                },
              },
            ]),
          ),
          // autocompletion() brings its own keymap (Enter/Tab accept), ahead of these.
          keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...historyKeymap, indentWithTab]),
          errorMark,
          EditorView.lineWrapping,
          EditorView.updateListener.of((u) => {
            if (u.docChanged) callbacks.current.onChange(u.state.doc.toString());
          }),
          EditorView.contentAttributes.of({ 'aria-label': 'SQL' }),
          theme,
        ],
      }),
    });
    view.current = v;
    v.focus();
    return () => {
      v.destroy();
      view.current = null;
    };
    // The editor is made once; value and schema changes are applied below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    const v = view.current;
    if (!v || v.state.doc.toString() === value) return;
    v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value }, selection: { anchor: value.length } });
    v.focus();
    // Only a new nonce (text sent from elsewhere) replaces the text.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [nonce]);

  useEffect(() => {
    view.current?.dispatch({ effects: lang.current.reconfigure(sqlLanguage(schema)) });
  }, [schema]);

  useEffect(() => {
    view.current?.dispatch({ effects: setError.of(errorAt ?? null) });
  }, [errorAt]);

  return <div className="sql-editor" ref={host} data-testid="sql-editor" />;
}

function sqlLanguage(schema: Record<string, string[]>) {
  return sql({ dialect: PostgreSQL, schema: schema as SQLNamespace, upperCaseKeywords: true });
}
