import type { Report } from '../../api';

/**
 * The report's own charts: charts/REF.svg in its markdown is drawn from
 * the SVG Loupe rendered, as a data: URL. Every other address is refused
 * (the Markdown view shows it as text).
 */
export function chartImages(report: Report) {
  return (src: string) => {
    const m = /^(?:\.\/)?charts\/([\w-]+)\.svg$/.exec(src);
    const chart = m ? report.charts.find((c) => c.ref === m[1]) : undefined;
    if (!chart) return undefined;
    return { src: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(chart.svg)}`, alt: chart.ref };
  };
}
