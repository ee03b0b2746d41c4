import { DATA_FORMATS } from '../formats';
import { LoupeMark } from './LoupeMark';

export interface WelcomeScreenProps {
  /** The backend's version; null outside the desktop app; undefined while loading. */
  version: string | null | undefined;
}

/** The first screen: what Loupe is and which data it opens. */
export function WelcomeScreen({ version }: WelcomeScreenProps) {
  return (
    <div className="welcome">
      <header className="welcome__hero">
        <LoupeMark />
        <div>
          <h1 className="welcome__title">Loupe</h1>
          <p className="welcome__tagline">Ask your data questions, locally.</p>
        </div>
      </header>

      <main>
        <section className="open-data" aria-labelledby="open-data-title">
          <div className="open-data__icon" aria-hidden="true">
            <svg viewBox="0 0 24 24" width="28" height="28" focusable="false">
              <path d="M3 7.5A2.5 2.5 0 0 1 5.5 5H9l2 2h7.5A2.5 2.5 0 0 1 21 9.5v8A2.5 2.5 0 0 1 18.5 20h-13A2.5 2.5 0 0 1 3 17.5z" />
            </svg>
          </div>
          <h2 id="open-data-title" className="open-data__title">
            Open data…
          </h2>
          <p className="open-data__lead">
            Load files from this computer, then ask questions in plain words. Loupe explores the
            tables, runs read-only SQL and draws charts. Your files never leave your machine.
          </p>
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
      </main>

      <footer className="welcome__footer">
        <span>Runs offline with a local model, or with a hosted one you choose.</span>
        <VersionBadge version={version} />
      </footer>
    </div>
  );
}

function VersionBadge({ version }: WelcomeScreenProps) {
  if (version === undefined) {
    return null;
  }
  const label = version === null ? 'browser preview' : `version ${version}`;
  return (
    <span className="badge" data-testid="version">
      {label}
    </span>
  );
}
