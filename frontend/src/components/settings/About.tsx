import { useEffect, useState } from 'react';
import * as api from '../../api';

/**
 * Settings › About: the version of the running Loupe, the one
 * `loupe --version` prints and a report's footer names.
 */
export function About() {
  const [version, setVersion] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    let live = true;
    api.getVersion().then(
      (v) => live && setVersion(v),
      () => live && setVersion(null),
    );
    return () => {
      live = false;
    };
  }, []);
  return (
    <section className="card" aria-labelledby="about-title">
      <h2 className="card__title" id="about-title">
        About
      </h2>
      <p>
        Loupe <span data-testid="about-version">{version === undefined ? '…' : (version ?? 'version unknown')}</span>
      </p>
      <p className="about__note">Ask your data questions, locally. Reports you write name this version in their footer.</p>
    </section>
  );
}
