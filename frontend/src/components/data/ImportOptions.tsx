import type { TextOptions } from '../../api';

/** Import options that leave everything to detection. */
export const DETECTED: TextOptions = { delimiter: '', decimal: '', header: '', encoding: '', skipRows: 0 };

/** isDetected says whether o sets nothing. */
export function isDetected(o: TextOptions): boolean {
  return o.delimiter === '' && o.decimal === '' && o.header === '' && o.encoding === '' && o.skipRows === 0;
}

const DELIMITERS: [string, string][] = [
  ['', 'Detect'],
  [',', 'Comma ,'],
  [';', 'Semicolon ;'],
  ['\t', 'Tab'],
  ['|', 'Pipe |'],
];

/**
 * The import options of a CSV or TSV file as a small form: delimiter,
 * decimal separator, header row, encoding and lines to skip. Each select
 * starts at "Detect"; the backend checks the values (load.ValidText).
 */
export function ImportOptionsFields({ value, onChange, disabled }: { value: TextOptions; onChange: (o: TextOptions) => void; disabled?: boolean }) {
  const set = (patch: Partial<TextOptions>) => onChange({ ...value, ...patch });
  const custom = !DELIMITERS.some(([d]) => d === value.delimiter);
  return (
    <fieldset className="import-options" disabled={disabled}>
      <legend className="field__label">Import options</legend>
      <label className="import-options__field">
        <span>Delimiter</span>
        <select aria-label="Delimiter" value={custom ? 'other' : value.delimiter} onChange={(e) => set({ delimiter: e.target.value === 'other' ? ':' : e.target.value })}>
          {DELIMITERS.map(([d, label]) => (
            <option key={label} value={d}>
              {label}
            </option>
          ))}
          <option value="other">Other…</option>
        </select>
        {custom && (
          <input aria-label="Other delimiter" className="import-options__char" maxLength={1} value={value.delimiter} onChange={(e) => set({ delimiter: e.target.value })} />
        )}
      </label>
      <label className="import-options__field">
        <span>Decimal separator</span>
        <select aria-label="Decimal separator" value={value.decimal} onChange={(e) => set({ decimal: e.target.value })}>
          <option value="">Detect</option>
          <option value=".">Point: 1,234.50</option>
          <option value=",">Comma: 1.234,50</option>
        </select>
      </label>
      <label className="import-options__field">
        <span>Header row</span>
        <select aria-label="Header row" value={value.header} onChange={(e) => set({ header: e.target.value })}>
          <option value="">Detect</option>
          <option value="yes">Yes, the first row names the columns</option>
          <option value="no">No, the first row is data</option>
        </select>
      </label>
      <label className="import-options__field">
        <span>Encoding</span>
        <select aria-label="Encoding" value={value.encoding} onChange={(e) => set({ encoding: e.target.value })}>
          <option value="">Detect</option>
          <option value="utf-8">UTF-8</option>
          <option value="latin-1">Latin-1 / Windows-1252</option>
          <option value="utf-16">UTF-16</option>
        </select>
      </label>
      <label className="import-options__field">
        <span>Skip lines</span>
        <input
          aria-label="Skip lines"
          type="number"
          min={0}
          className="import-options__num"
          value={value.skipRows}
          onChange={(e) => set({ skipRows: Math.max(0, Math.floor(Number(e.target.value) || 0)) })}
        />
      </label>
    </fieldset>
  );
}
