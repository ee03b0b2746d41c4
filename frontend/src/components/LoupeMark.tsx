import './LoupeMark.css';
/** The Loupe logo: a magnifying glass over three bars of a chart. */
export function LoupeMark({ size = 56 }: { size?: number }) {
  return (
    <svg
      className="loupe-mark"
      width={size}
      height={size}
      viewBox="0 0 64 64"
      aria-hidden="true"
      focusable="false"
    >
      <rect x="2" y="2" width="60" height="60" rx="16" className="loupe-mark__tile" />
      <rect x="19" y="31" width="4" height="7" rx="1.2" className="loupe-mark__bar" />
      <rect x="25" y="24" width="4" height="14" rx="1.2" className="loupe-mark__bar" />
      <rect x="31" y="28" width="4" height="10" rx="1.2" className="loupe-mark__bar" />
      <circle cx="27" cy="31" r="15" className="loupe-mark__lens" />
      <path d="M39 43 L49 53" className="loupe-mark__handle" />
    </svg>
  );
}
