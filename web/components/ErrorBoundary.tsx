// A part of the page that throws while rendering says why in its own box, and the rest
// of the page keeps working (DESIGN.md: "A chart that cannot draw says why in its own
// box; the page is never blank"). React catches render errors only in class components
// (getDerivedStateFromError / componentDidCatch).
import { Component, type ErrorInfo, type ReactNode } from 'react';

export interface ErrorBoundaryProps {
  children?: ReactNode;
  /** What could not be drawn, for the message: "This chart could not be drawn: …". */
  what?: string;
  /** Rendered instead of the default message. */
  fallback?: (error: Error, reset: () => void) => ReactNode;
  /** Any change of this value clears the error (e.g. the connection id or the data). */
  resetKey?: unknown;
  onError?: (error: Error, info: ErrorInfo) => void;
}

interface State {
  error: Error | null;
  resetKey: unknown;
}

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(typeof value === 'string' ? value : String(value));
}

export class ErrorBoundary extends Component<ErrorBoundaryProps, State> {
  state: State = { error: null, resetKey: this.props.resetKey };

  static getDerivedStateFromError(error: unknown): Partial<State> {
    return { error: asError(error) };
  }

  static getDerivedStateFromProps(props: ErrorBoundaryProps, state: State): Partial<State> | null {
    // New data (another connection, another capture) gets a fresh try.
    return Object.is(props.resetKey, state.resetKey) ? null : { error: null, resetKey: props.resetKey };
  }

  componentDidCatch(error: unknown, info: ErrorInfo) {
    this.props.onError?.(asError(error), info);
  }

  reset = () => this.setState({ error: null });

  render() {
    const { error } = this.state;
    if (!error) return this.props.children ?? null;
    if (this.props.fallback) return this.props.fallback(error, this.reset);
    return (
      <div className="chart-error" role="alert" data-testid="render-error">
        This {this.props.what ?? 'part of the page'} could not be drawn: {error.message || error.name}{' '}
        <button type="button" className="link" onClick={this.reset}>
          Try again
        </button>
      </div>
    );
  }
}

export default ErrorBoundary;
