// Line icons drawn on a 24-unit grid with the current text colour.

const paths = {
  plus: 'M12 5v14M5 12h14',
  folder: 'M3 7.5A2.5 2.5 0 0 1 5.5 5H9l2 2h7.5A2.5 2.5 0 0 1 21 9.5v8a2.5 2.5 0 0 1-2.5 2.5h-13A2.5 2.5 0 0 1 3 17.5z',
  chat: 'M4 5.5A2.5 2.5 0 0 1 6.5 3h11A2.5 2.5 0 0 1 20 5.5v8a2.5 2.5 0 0 1-2.5 2.5H10l-4.5 4v-4h0A2.5 2.5 0 0 1 4 13.5z',
  table: 'M4 5h16v14H4zM4 10h16M4 15h16M10 5v14',
  more: 'M6 12h.01M12 12h.01M18 12h.01',
  play: 'M7 5l12 7-12 7z',
  stop: 'M7 7h10v10H7z',
  chart: 'M4 20h16M7 16v-5M12 16V7M17 16v-8',
  copy: 'M9 9h10v11H9zM5 15V4h10',
  download: 'M12 4v11M7 10l5 5 5-5M5 20h14',
  settings:
    'M12 15a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM19.4 13.5l1.6 1.2-2 3.5-1.9-.7a7 7 0 0 1-2.1 1.2L14.7 21h-4l-.3-2.3a7 7 0 0 1-2.1-1.2l-1.9.7-2-3.5 1.6-1.2a7 7 0 0 1 0-2.4L4.4 9.9l2-3.5 1.9.7a7 7 0 0 1 2.1-1.2L10.7 3h4l.3 2.3a7 7 0 0 1 2.1 1.2l1.9-.7 2 3.5-1.6 1.2a7 7 0 0 1 0 2.4z',
  search: 'M11 18a7 7 0 1 0 0-14 7 7 0 0 0 0 14zM20 20l-4-4',
  chevron: 'M9 6l6 6-6 6',
  check: 'M5 12.5l4.5 4.5L19 7.5',
  x: 'M6 6l12 12M18 6L6 18',
  refresh: 'M20 11a8 8 0 1 0-2.3 5.7M20 5v6h-6',
  trash: 'M5 7h14M10 11v6M14 11v6M6 7l1 13h10l1-13M9 7V4h6v3',
  pencil: 'M4 20h4L19 9l-4-4L4 16zM14 6l4 4',
  lock: 'M6 11h12v10H6zM8 11V7a4 4 0 0 1 8 0v4',
  sparkle: 'M12 3l1.8 5.2L19 10l-5.2 1.8L12 17l-1.8-5.2L5 10l5.2-1.8zM19 16l.8 2.2L22 19l-2.2.8L19 22l-.8-2.2L16 19l2.2-.8z',
  terminal: 'M4 5h16v14H4zM8 10l3 2.5L8 15M13 15h4',
  report: 'M6 3h9l4 4v14H6zM14 3v5h5M9 12h7M9 16h7',
  warning: 'M12 4l9 16H3zM12 10v4M12 17h.01',
  database: 'M12 8c4.4 0 8-1.3 8-3s-3.6-3-8-3-8 1.3-8 3 3.6 3 8 3zM4 5v14c0 1.7 3.6 3 8 3s8-1.3 8-3V5M4 12c0 1.7 3.6 3 8 3s8-1.3 8-3',
  eye: 'M2 12s3.5-7 10-7 10 7 10 7-3.5 7-10 7S2 12 2 12zM12 15a3 3 0 1 0 0-6 3 3 0 0 0 0 6z',
  pulse: 'M3 12h4l3-8 4 16 3-8h4',
  clock: 'M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM12 7v5l3 2',
  send: 'M5 12h13M13 6l6 6-6 6',
  link: 'M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1',
  file: 'M6 3h9l4 4v14H6zM14 3v5h5',
  filter: 'M4 5h16l-6 7.5V19l-4 1.5v-8z',
} as const;

export type IconName = keyof typeof paths;

/** Every icon's name, for checking a name that comes as data (a tool's view). */
export const iconNames = Object.keys(paths) as readonly IconName[];

export function Icon({ name, size = 16, className }: { name: IconName; size?: number; className?: string }) {
  return (
    <svg
      className={className ? `icon ${className}` : 'icon'}
      width={size}
      height={size}
      viewBox="0 0 24 24"
      aria-hidden="true"
      focusable="false"
    >
      <path d={paths[name]} />
    </svg>
  );
}
