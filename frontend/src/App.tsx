import { useEffect, useState } from 'react';
import { ChatView, showsWelcome } from './components/chat/ChatView';
import * as api from './api';
import { Notices } from './components/common/Notices';
import { FolderDialog } from './components/common/FolderDialog';
import { PathDialog } from './components/common/PathDialog';
import { SqlConsole } from './components/console/SqlConsole';
import { DatasetView } from './components/data/DatasetView';
import { ReportView } from './components/report/ReportView';
import { SettingsView } from './components/settings/SettingsView';
import { LoadPanel } from './components/sidebar/LoadPanel';
import { Sidebar } from './components/sidebar/Sidebar';
import { StatusBar } from './components/StatusBar';
import { useTheme } from './hooks/useColorScheme';
import { useShortcuts } from './hooks/useShortcuts';
import { useActions, withSavedTabs } from './state/actions';
import { useBackend } from './state/events';
import { createStore, initialState, StoreContext, useStore, type Store, type View } from './state/store';
import './App.css';

/** The root component: one store, wired to the backend, around the shell. */
export function App({ store: given }: { store?: Store }) {
  const [store] = useState(() => given ?? createStore(withSavedTabs(initialState())));
  useBackend(store);
  return (
    <StoreContext.Provider value={store}>
      <Shell />
    </StoreContext.Provider>
  );
}

function Shell() {
  const view = useStore((s) => s.view);
  const welcome = useStore(showsWelcome);
  const theme = useStore((s) => s.settings?.theme);
  useTheme(theme);
  useShortcuts();
  const dragging = useFileDrag();
  return (
    <div className="app">
      <Sidebar />
      <main className="main">
        <MainView view={view} />
        {/* The welcome screen shows loads in place, where the user clicked. */}
        {!welcome && (
          <div className="main__tray">
            <LoadPanel />
          </div>
        )}
        {dragging && <DropOverlay />}
      </main>
      <StatusBar />
      <Notices />
      <PathDialog />
      <FolderDialog />
    </div>
  );
}

function MainView({ view }: { view: View }) {
  switch (view.kind) {
    case 'chat':
      return <ChatView />;
    case 'console':
      return <SqlConsole />;
    case 'report':
      return <ReportView chatId={view.chatId} runId={view.runId} />;
    case 'settings':
      return <SettingsView />;
    case 'dataset':
      return <DatasetView name={view.name} mode={view.mode} />;
  }
}

function DropOverlay() {
  return (
    <div className="drop-overlay" aria-hidden="true">
      <div className="drop-overlay__box">Drop files to open them</div>
    </div>
  );
}

/**
 * useFileDrag shows the drop overlay while files are dragged over the
 * window. The desktop app receives the dropped paths from the runtime
 * (api.onFileDrop); a browser gets no paths, so it says how to open instead.
 */
function useFileDrag(): boolean {
  const a = useActions();
  const [dragging, setDragging] = useState(false);
  useEffect(() => {
    let depth = 0;
    const hasFiles = (e: DragEvent) => Array.from(e.dataTransfer?.types ?? []).includes('Files');
    const enter = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      depth++;
      setDragging(true);
    };
    const leave = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      depth = Math.max(0, depth - 1);
      if (depth === 0) setDragging(false);
    };
    const over = (e: DragEvent) => {
      if (hasFiles(e)) e.preventDefault();
    };
    const drop = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      depth = 0;
      setDragging(false);
      if (!api.isDesktop()) {
        a.notify('error', 'This browser cannot tell Loupe where dropped files are', 'Use Open files… and paste their paths.');
      }
    };
    window.addEventListener('dragenter', enter);
    window.addEventListener('dragleave', leave);
    window.addEventListener('dragover', over);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragenter', enter);
      window.removeEventListener('dragleave', leave);
      window.removeEventListener('dragover', over);
      window.removeEventListener('drop', drop);
    };
  }, [a]);
  return dragging;
}
