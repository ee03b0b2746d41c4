import { useEffect, useState } from 'react';
import type { Token } from './sqlHighlight';
import './sql.css';

let loader: Promise<typeof import('./sqlHighlight')> | null = null;

/** A read-only block of SQL, highlighted once the grammar has loaded. */
export function SqlBlock({ sql }: { sql: string }) {
  const [toks, setToks] = useState<Token[] | null>(null);
  useEffect(() => {
    let live = true;
    loader ??= import('./sqlHighlight');
    loader
      .then((m) => {
        if (live) setToks(m.tokens(sql));
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [sql]);
  return (
    <pre className="sql-block" data-testid="sql">
      <code>
        {toks === null
          ? sql
          : toks.map((t, i) =>
              t.cls === '' ? (
                t.text
              ) : (
                <span key={i} className={t.cls}>
                  {t.text}
                </span>
              ),
            )}
      </code>
    </pre>
  );
}
