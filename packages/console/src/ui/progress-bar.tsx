/** A labelled progress bar: the native element, with its value also in `aria-valuenow`. */
export function ProgressBar(props: { label: string; value: number; max: number }) {
  const max = props.max > 0 ? props.max : 1;
  const value = Math.min(Math.max(props.value, 0), max);
  return (
    <progress role="progressbar" aria-label={props.label} aria-valuemin={0} aria-valuemax={max} aria-valuenow={value} value={value} max={max}>
      {Math.round((value / max) * 100)}%
    </progress>
  );
}
