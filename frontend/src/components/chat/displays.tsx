// The one registry of how a tool result is drawn, keyed by its display
// kind (tools.Display.Kind): a tool never needs a view of its own unless it
// brings a new kind. What a call is called and its icon come from the
// tool's Spec (CallView.view); the kind's icon stands in when it gives none.
import type { ReactNode } from 'react';
import type { DisplayKind, ToolDisplay, ToolChart, ToolView } from '../../api';
import type { CallView } from '../../trace/trace';
import { iconNames, type IconName } from '../common/Icon';
import { DataGrid, type GridSource } from '../grid/DataGrid';
import { ChartView } from './ChartView';
import { ProfileView, type ProfileData } from '../data/ProfileView';
import { VerdictView, type VerdictData } from './VerdictView';

/** What a display kind's body is drawn from. */
export interface BodyProps {
  display: ToolDisplay;
  /** The table as the grid pages it, when the result has one. */
  source: GridSource | null;
  /** The chart to draw: the chart event's, else the display's. */
  chart?: ToolChart | undefined;
}

/** How one display kind is shown. */
export interface KindView {
  /** The icon of a call whose tool names none. */
  icon: IconName;
  /** Calls with a successful result of this kind open by themselves. */
  opens?: boolean;
  Body: (p: BodyProps) => ReactNode;
}

export const displays: Record<DisplayKind, KindView> = {
  text: { icon: 'file', Body: ({ display }) => (display.text ? <pre className="call__text">{display.text}</pre> : null) },
  error: { icon: 'warning', Body: ({ display }) => <div className="call__error">{display.text}</div> },
  table: { icon: 'table', Body: ({ source }) => (source ? <DataGrid source={source} /> : null) },
  chart: {
    icon: 'chart',
    opens: true,
    Body: ({ chart }) => (chart ? <ChartView spec={chart.spec} title={chart.title} /> : null),
  },
  question: { icon: 'chat', Body: () => null },
  profile: {
    icon: 'pulse',
    Body: ({ display }) => (display.data != null ? <ProfileView data={display.data as ProfileData} /> : null),
  },
  verdict: {
    icon: 'check',
    Body: ({ display }) => (display.data != null ? <VerdictView data={display.data as VerdictData} /> : null),
  },
};

/** The kind's view, or undefined for a kind this UI does not know. */
export function kindView(kind: string | undefined): KindView | undefined {
  return kind !== undefined && Object.hasOwn(displays, kind) ? displays[kind as DisplayKind] : undefined;
}

/** The kind a call's result shows as: a chart event makes it a chart. */
export function callKind(c: CallView): string | undefined {
  if (c.chart) return 'chart';
  return c.result?.display?.kind;
}

/** The icon of a call: its tool's, else its result kind's, else a sparkle. */
export function callIcon(c: CallView): IconName {
  const named = toolIcon(c.view);
  if (named) return named;
  return kindView(callKind(c))?.icon ?? 'sparkle';
}

function toolIcon(v: ToolView | undefined): IconName | undefined {
  const i = v?.icon;
  return i !== undefined && (iconNames as readonly string[]).includes(i) ? (i as IconName) : undefined;
}

/** Calls that open by themselves: a successful result of a kind that opens (charts). */
export function opensByDefault(c: CallView): boolean {
  return c.result !== undefined && !c.result.failed && kindView(callKind(c))?.opens === true;
}

/** The body of a result, as its kind draws it. */
export function DisplayBody(p: BodyProps & { kind: string | undefined }) {
  const v = kindView(p.kind);
  return v ? <>{v.Body(p)}</> : null;
}
