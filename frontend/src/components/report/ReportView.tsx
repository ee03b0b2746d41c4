import { useMemo } from 'react';
import * as api from '../../api';
import type { ExportFormat } from '../../api';
import { useActions } from '../../state/actions';
import { problemOf } from '../../state/problem';
import { useStore } from '../../state/store';
import { ErrorNote } from '../common/ErrorNote';
import { Icon } from '../common/Icon';
import { Markdown } from '../common/Markdown';
import { Menu } from '../common/Menu';
import { CoverPicker } from './CoverPicker';
import { chartImages } from './chartImages';
import { ReportVersions } from './ReportVersions';
import './report.css';

/** The report of one run: streamed while written, then rendered with its charts. */
export function ReportView({ chatId, runId }: { chatId: string; runId: string }) {
  const a = useActions();
  const state = useStore((s) => s.reports[runId]);
  const report = state?.report;
  const charts = useMemo(() => (report ? chartImages(report) : undefined), [report]);

  const exportAs = async (format: ExportFormat) => {
    try {
      const path = await api.exportReport(runId, format);
      if (path) a.notify('info', `Saved the report to ${path}`);
    } catch (err) {
      const p = problemOf(err);
      a.notify('error', `Could not export the report: ${p.message}`, p.hint);
    }
  };
  const copy = async () => {
    if (!report) return;
    try {
      await navigator.clipboard.writeText(report.markdown);
      a.notify('info', 'Copied the report as markdown');
    } catch (err) {
      a.notify('error', 'Could not copy to the clipboard', problemOf(err).message);
    }
  };

  return (
    <div className="report-view">
      <header className="view-head">
        <button type="button" className="button button--ghost button--small" onClick={() => void a.openChat(chatId)}>
          ← Conversation
        </button>
        <h1 className="view-head__title">{report?.title ?? 'Report'}</h1>
        <span className="view-head__spacer" />
        {state?.writing && (
          <span className="view-head__sub">
            <span className="spinner spinner--small" /> Writing…
          </span>
        )}
        <button type="button" className="button" disabled={!report} onClick={() => void copy()}>
          <Icon name="copy" size={14} /> Copy
        </button>
        <button type="button" className="button" disabled={!report} onClick={() => void exportAs('html')}>
          <Icon name="download" size={14} /> Export HTML
        </button>
        <button type="button" className="button button--primary" disabled={!report} onClick={() => void exportAs('folder')}>
          <Icon name="folder" size={14} /> Export folder
        </button>
        {report && (
          <Menu
            label="More export formats"
            items={[
              { label: 'Export PDF', onSelect: () => void exportAs('pdf') },
              { label: 'Export Excel workbook (XLSX)', onSelect: () => void exportAs('xlsx') },
            ]}
          />
        )}
      </header>
      {report && (
        <div className="report-view__bar">
          <CoverPicker
            report={report}
            busy={!!state?.writing}
            onWrite={(turns) => void a.openReport(chatId, runId, true, turns)}
          />
          <ReportVersions chatId={chatId} runId={runId} report={report} busy={!!state?.writing} />
          {(report.notices?.length ?? 0) > 0 && (
            <span className="report-view__notes" data-testid="report-notes">
              {report.notices!.length} note{report.notices!.length > 1 ? 's' : ''} at the end on what Loupe changed or left
              out
            </span>
          )}
        </div>
      )}
      {/* Focusable, so the keyboard scrolls a report with no link in it. */}
      <div className="report-view__scroll" tabIndex={0} role="region" aria-label="Report">
        <article className="report" data-testid="report">
          {state?.error && (
            <ErrorNote title="The report could not be written" problem={state.error} />
          )}
          {report ? (
            <Markdown text={report.markdown} localImage={charts} />
          ) : (
            <Markdown text={placeholders(state?.text ?? '')} />
          )}
          {state?.error && (
            <button type="button" className="button" onClick={() => void a.openReport(chatId, runId, true)}>
              <Icon name="refresh" size={14} /> Try again
            </button>
          )}
          {!state && <div className="report__empty">No report for this answer yet.</div>}
        </article>
      </div>
    </div>
  );
}

/** While streaming, chart and table placeholders read as what they will be. */
function placeholders(text: string): string {
  return text.replace(/\{\{(chart|table):([\w-]+)\}\}/g, (_m, kind: string, ref: string) => `*(${kind} ${ref})*`);
}
