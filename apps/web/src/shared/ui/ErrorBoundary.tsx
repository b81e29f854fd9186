/**
 * Catches render errors of a subtree (e.g. a lazy view whose chunk failed to load) and shows
 * `fallback` instead of a blank page. Resets when `resetKey` changes (e.g. the path).
 */
import { Component, type ErrorInfo, type ReactNode } from 'react';

interface Props {
  fallback: ReactNode;
  resetKey?: string;
  children: ReactNode;
}

interface State {
  failed: boolean;
  key: string | undefined;
}

/** Shows `fallback` instead of a subtree that threw while rendering. */
export class ErrorBoundary extends Component<Props, State> {
  override state: State = { failed: false, key: this.props.resetKey };

  static getDerivedStateFromError(): Partial<State> {
    return { failed: true };
  }

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    return props.resetKey !== state.key ? { failed: false, key: props.resetKey } : null;
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error(error, info.componentStack);
  }

  override render(): ReactNode {
    return this.state.failed ? this.props.fallback : this.props.children;
  }
}
