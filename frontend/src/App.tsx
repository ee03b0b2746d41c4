import { useEffect, useState } from 'react';
import { getVersion } from './api';
import { WelcomeScreen } from './components/WelcomeScreen';

/** The root component. */
export function App() {
  const version = useVersion();
  return <WelcomeScreen version={version} />;
}

// useVersion asks the backend for its version once. It yields undefined while
// the call is in flight and null when there is no backend or the call failed:
// the version is decoration, never worth an error on the first screen.
function useVersion(): string | null | undefined {
  const [version, setVersion] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    let live = true;
    getVersion()
      .catch((err: unknown) => {
        console.error(err);
        return null;
      })
      .then((v) => {
        if (live) setVersion(v);
      });
    return () => {
      live = false;
    };
  }, []);
  return version;
}
