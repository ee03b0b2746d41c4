import { useEffect, useState } from 'react';
import * as api from '../../api';
import type { PrivacyLevel, PrivacyState } from '../../api';
import { problemOf, type Problem } from '../../state/problem';
import { ErrorNote } from '../common/ErrorNote';
import './privacy.css';

/**
 * privacyWords is the promise the welcome screen makes, true to the level in
 * force: a local model is told apart from a hosted one, and a hosted one's
 * level says what it sees.
 */
export function privacyWords(p: PrivacyState | null): string {
  if (p === null) return 'Your files stay on your machine.';
  if (p.local) return `Your files never leave your machine: the model runs on ${p.host}.`;
  return `Your files stay on your machine; ${p.host} sees ${p.describe}.`;
}

/** usePrivacy loads the privacy state, again whenever refresh changes; null until loaded (or on error). */
export function usePrivacy(refresh?: unknown): [PrivacyState | null, () => void] {
  const [state, setState] = useState<PrivacyState | null>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    api
      .getPrivacy()
      .then((p) => live && setState(p))
      .catch(() => live && setState(null));
    return () => {
      live = false;
    };
  }, [refresh, tick]);
  return [state, () => setTick((t) => t + 1)];
}

/** LevelChoice is the three levels as radio buttons, each with what it sends. */
export function LevelChoice({
  state,
  value,
  onChange,
  name,
}: {
  state: PrivacyState;
  value: PrivacyLevel;
  onChange: (l: PrivacyLevel) => void;
  name: string;
}) {
  return (
    <div className="privacy-levels" role="radiogroup" aria-label="Privacy level">
      {state.levels.map((l) => (
        <label key={l.level} className="privacy-level">
          <input type="radio" name={name} value={l.level} checked={value === l.level} onChange={() => onChange(l.level)} />
          <span className="privacy-level__name">{l.level}</span>
          <span className="privacy-level__describe">{l.describe}</span>
        </label>
      ))}
    </div>
  );
}

/**
 * PrivacyChooser is shown before the first question to a model server on
 * another machine: nothing is sent until a level is chosen.
 */
export function PrivacyChooser({ onChosen }: { onChosen: () => void }) {
  const [state] = usePrivacy();
  const [level, setLevel] = useState<PrivacyLevel | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  if (state === null) return null;
  const chosen = level ?? state.level;
  const choose = async () => {
    try {
      await api.setPrivacy(chosen);
      onChosen();
    } catch (err) {
      setProblem(problemOf(err));
    }
  };
  return (
    <section className="privacy-chooser card" data-testid="privacy-chooser" aria-labelledby="privacy-chooser-title">
      <h2 id="privacy-chooser-title" className="card__title">
        Choose what {state.host} may see
      </h2>
      <p>
        Your model runs on {state.host}, not on this machine. Nothing has been sent yet. Choose what it may see of your
        data; you can change it later in Settings, and each answer shows what was sent.
      </p>
      <LevelChoice state={state} value={chosen} onChange={setLevel} name="privacy-first" />
      {problem && <ErrorNote problem={problem} />}
      <button type="button" className="button button--primary" onClick={() => void choose()}>
        Use {chosen}, then send the question again
      </button>
    </section>
  );
}

/** PrivacySettings is the Privacy card of Settings: the level of the saved model server. */
export function PrivacySettings({ refresh }: { refresh: unknown }) {
  const [state, reload] = usePrivacy(refresh);
  const [problem, setProblem] = useState<Problem | null>(null);
  if (state === null) return null;
  const choose = async (l: PrivacyLevel) => {
    try {
      await api.setPrivacy(l);
      setProblem(null);
      reload();
    } catch (err) {
      setProblem(problemOf(err));
    }
  };
  return (
    <section className="card" data-testid="privacy-settings">
      <h2 className="card__title">Privacy</h2>
      <p className="field__note">
        {state.local
          ? `The model runs on ${state.host}, on this machine: nothing leaves it, whatever the level.`
          : `The model runs on ${state.host}. ${state.chosen ? 'You chose' : 'Until you choose, it gets'} level ${state.level}: it sees ${state.describe}.`}{' '}
        The level is kept for this server; saving another server above starts from its own default.
      </p>
      <LevelChoice state={state} value={state.level} onChange={(l) => void choose(l)} name="privacy-settings" />
      {problem && <ErrorNote problem={problem} />}
    </section>
  );
}
