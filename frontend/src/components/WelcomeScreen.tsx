import { useEffect, useState } from 'react';
import * as api from '../api';
import { DATA_FORMATS } from '../formats';
import { basename } from '../format';
import { useActions } from '../state/actions';
import { useStore } from '../state/store';
import { Icon } from './common/Icon';
import { LoupeMark } from './LoupeMark';
import { ModelBanner } from './chat/ModelBanner';
import { LoadPanel } from './sidebar/LoadPanel';
import { privacyWords, usePrivacy } from './privacy/Privacy';
import './WelcomeScreen.css';

/** The first screen, while no data is loaded: open files or try the sample. */
export function WelcomeScreen() {
  const a = useActions();
  const loading = useStore((s) => Object.keys(s.loads).length > 0);
  const [recent, setRecent] = useState<string[]>([]);
  const [questions, setQuestions] = useState<string[]>([]);
  const settings = useStore((s) => s.settings);
  const [privacy] = usePrivacy(settings);
  useEffect(() => {
    let live = true;
    // Both are decoration: without them the screen still works.
    api
      .recentFiles()
      .then((r) => live && setRecent(r))
      .catch(() => undefined);
    api
      .sampleQuestions()
      .then((q) => live && setQuestions(q))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, []);

  const trySample = async (question?: string) => {
    await a.loadSample();
    if (question) a.focusComposer(question);
  };

  return (
    <div className="welcome">
      <header className="welcome__hero">
        <LoupeMark />
        <div>
          <h1 className="welcome__title">Loupe</h1>
          <p className="welcome__tagline">Ask your data questions, locally.</p>
        </div>
      </header>

      <ModelBanner />

      <div className="welcome__grid">
        <section className="open-data" aria-labelledby="open-data-title">
          <div className="open-data__icon" aria-hidden="true">
            <Icon name="folder" size={28} />
          </div>
          <h2 id="open-data-title" className="open-data__title">
            Open data…
          </h2>
          <p className="open-data__lead">
            Drop files or a folder on this window, or choose them. Loupe explores the tables, runs read-only SQL and draws
            charts. <span data-testid="privacy-words">{privacyWords(privacy)}</span>
          </p>
          <div className="open-data__actions">
            <button type="button" className="button button--primary" onClick={() => void a.chooseAndOpen()} disabled={loading}>
              <Icon name="folder" size={15} /> Open files… <kbd>Ctrl+O</kbd>
            </button>
            <button type="button" className="button" onClick={() => void a.chooseFolder()} disabled={loading}>
              <Icon name="folder" size={15} /> Open a folder…
            </button>
            <button type="button" className="button" onClick={() => void trySample()} disabled={loading}>
              <Icon name="sparkle" size={15} /> Try the sample data
            </button>
          </div>
          <div className="open-data__loads">
            <LoadPanel />
          </div>
          <ul className="formats" aria-label="Supported formats">
            {DATA_FORMATS.map((format) => (
              <li key={format.name} className="formats__item">
                <span className="formats__name">{format.name}</span>
                <span className="formats__ext">{format.extensions.join('  ')}</span>
                <span className="formats__note">{format.note}</span>
              </li>
            ))}
          </ul>
        </section>

        <aside className="welcome__side">
          {questions.length > 0 && (
          <section>
            <h3 className="welcome__h3">Try asking the sample</h3>
            <div className="examples examples--column">
              {questions.slice(0, 4).map((q) => (
                <button type="button" key={q} className="example" disabled={loading} onClick={() => void trySample(q)}>
                  {q}
                </button>
              ))}
            </div>
          </section>
          )}
          {recent.length > 0 && (
            <section>
              <h3 className="welcome__h3">Recent files</h3>
              <ul className="recent">
                {recent.slice(0, 6).map((p) => (
                  <li key={p}>
                    <button type="button" className="recent__item" title={p} onClick={() => void a.openPaths([p])}>
                      <Icon name="file" size={14} />
                      <span className="recent__name">{basename(p)}</span>
                      <span className="recent__dir">{p}</span>
                    </button>
                  </li>
                ))}
              </ul>
            </section>
          )}
        </aside>
      </div>

      <footer className="welcome__footer">
        <span>Runs offline with a local model, or with a hosted one you choose.</span>
        <span>
          <kbd>Ctrl</kbd>+<kbd>O</kbd> open files · <kbd>Ctrl</kbd>+<kbd>K</kbd> ask
        </span>
      </footer>
    </div>
  );
}
