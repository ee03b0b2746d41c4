import { useEffect, useState } from 'react';
import * as api from '../../api';
import type { Report, ReportDiff, ReportVersion } from '../../api';
import { useActions } from '../../state/actions';
import { problemOf } from '../../state/problem';
import { Icon } from '../common/Icon';
import { Markdown } from '../common/Markdown';
import { ModalForm } from '../common/ModalForm';
import { chartImages } from './chartImages';

/**
 * ReportVersions refreshes the report on the current data (a new version
 * opening with "What changed"), lists the versions kept and compares any
 * two of them.
 */
export function ReportVersions({ chatId, runId, report, busy }: { chatId: string; runId: string; report: Report; busy: boolean }) {
  const a = useActions();
  const [refreshing, setRefreshing] = useState(false);
  const [versions, setVersions] = useState<ReportVersion[]>([]);
  const [picked, setPicked] = useState<number[]>([]);
  const [diff, setDiff] = useState<ReportDiff | null>(null);
  const [shown, setShown] = useState<{ n: number; report: Report } | null>(null);

  useEffect(() => {
    let live = true;
    api.reportVersions(chatId).then(
      (vs) => {
        if (!live) return;
        setVersions(vs);
        // The two newest are compared unless the user picks others.
        setPicked(vs.slice(-2).map((v) => v.number));
      },
      () => live && setVersions([]),
    );
    return () => {
      live = false;
    };
  }, [chatId, report]);

  const refresh = async () => {
    setRefreshing(true);
    try {
      await a.refreshReport(chatId, runId);
      a.notify('info', 'Refreshed the report on the current data: see “What changed” at its top');
    } catch (err) {
      const p = problemOf(err);
      if (p.code === 'canceled') a.notify('info', 'Stopped the refresh: the report is as it was');
      else a.notify('error', `Could not refresh the report: ${p.message}`, p.hint);
    } finally {
      setRefreshing(false);
    }
  };
  const stop = () => {
    api.cancelRefresh(chatId).catch((err) => {
      const p = problemOf(err);
      a.notify('error', `Could not stop the refresh: ${p.message}`, p.hint);
    });
  };
  const compare = async () => {
    const [x, y] = picked;
    if (x === undefined || y === undefined) return;
    try {
      setDiff(await api.diffReportVersions(chatId, x, y));
    } catch (err) {
      const p = problemOf(err);
      a.notify('error', `Could not compare the versions: ${p.message}`, p.hint);
    }
  };
  const show = async (n: number) => {
    try {
      setShown({ n, report: await api.getReportVersion(chatId, n) });
    } catch (err) {
      const p = problemOf(err);
      a.notify('error', `Could not open version ${n}: ${p.message}`, p.hint);
    }
  };
  const toggle = (n: number) =>
    setPicked((p) => (p.includes(n) ? p.filter((x) => x !== n) : [...p, n].slice(-2).sort((x, y) => x - y)));

  return (
    <div className="report-versions" data-testid="report-versions">
      <button type="button" className="button button--small" disabled={busy || refreshing} onClick={() => void refresh()}>
        {refreshing ? <span className="spinner spinner--small" /> : <Icon name="refresh" size={14} />}
        {refreshing ? ' Refreshing…' : ' Refresh on current data'}
      </button>
      {refreshing && (
        <button type="button" className="button button--ghost button--small" onClick={stop}>
          <Icon name="stop" size={14} /> Stop
        </button>
      )}
      {versions.length > 0 && (
        <details className="report-versions__menu">
          <summary>
            {versions.length} version{versions.length === 1 ? '' : 's'}
          </summary>
          <fieldset className="report-versions__list">
            <legend>Versions of this report</legend>
            {versions.map((v) => (
              <div key={v.number} className="report-versions__item">
                <label className="report-versions__pick">
                  <input
                    type="checkbox"
                    aria-label={`Version ${v.number}`}
                    checked={picked.includes(v.number)}
                    onChange={() => toggle(v.number)}
                  />
                  <span className="report-versions__n">{v.number}.</span>
                  <span>{when(v.created)}</span>
                  <span className="report-versions__what">{v.what}</span>
                </label>
                <button
                  type="button"
                  className="button button--ghost button--small"
                  aria-label={`Show version ${v.number}`}
                  onClick={() => void show(v.number)}
                >
                  Show
                </button>
              </div>
            ))}
            <button type="button" className="button button--small" disabled={picked.length !== 2} onClick={() => void compare()}>
              {picked.length === 2 ? `Compare versions ${picked[0]} and ${picked[1]}` : 'Pick two versions to compare'}
            </button>
          </fieldset>
        </details>
      )}
      {diff && <DiffDialog diff={diff} onClose={() => setDiff(null)} />}
      {shown && <VersionDialog n={shown.n} report={shown.report} onClose={() => setShown(null)} />}
    </div>
  );
}

/** DiffDialog shows what moved between two versions and their text line by line. */
function DiffDialog({ diff, onClose }: { diff: ReportDiff; onClose: () => void }) {
  const changed = diff.lines.filter((l) => l.op !== ' ');
  return (
    <ModalForm labelledBy="report-diff-title" className="report-diff" testId="report-diff" onBackdrop={onClose} onSubmit={onClose}>
      <h2 id="report-diff-title">
        Version {diff.a} → version {diff.b}
      </h2>
      <p className="modal__lead">{diff.summary}</p>
      {diff.changes.length > 0 && (
        <ul className="report-diff__changes">
          {diff.changes.map((c, i) => (
            <li key={i}>{c}</li>
          ))}
        </ul>
      )}
      <details className="report-diff__text" open={changed.length > 0 && changed.length <= 40}>
        <summary>
          The text: {changed.length} line{changed.length === 1 ? '' : 's'} differ
        </summary>
        <pre className="report-diff__lines" aria-label="Lines that differ">
          {diff.lines.map((l, i) =>
            l.op === ' ' ? null : (
              <div key={i} className={l.op === '+' ? 'report-diff__add' : 'report-diff__del'}>
                {l.op} {l.text}
              </div>
            ),
          )}
        </pre>
      </details>
      <div className="modal__actions">
        <button type="submit" className="button button--primary">
          Close
        </button>
      </div>
    </ModalForm>
  );
}

/** VersionDialog shows one version of the report whole, as it was kept. */
function VersionDialog({ n, report, onClose }: { n: number; report: Report; onClose: () => void }) {
  return (
    <ModalForm labelledBy="report-version-title" className="report-diff" testId="report-version" onBackdrop={onClose} onSubmit={onClose}>
      <h2 id="report-version-title">Version {n}</h2>
      <article className="report report--version">
        <Markdown text={report.markdown} localImage={chartImages(report)} />
      </article>
      <div className="modal__actions">
        <button type="submit" className="button button--primary">
          Close
        </button>
      </div>
    </ModalForm>
  );
}

function when(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}
