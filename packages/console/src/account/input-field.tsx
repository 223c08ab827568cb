/**
 * The control for one typed input of an app, labelled with its key `<nodeId>:<widgetName>`:
 * STRING a textarea, INT and FLOAT number fields with their bounds, BOOLEAN a checkbox, COMBO a
 * select. Media inputs have their own picker.
 * @module
 */
import type { AppInput } from '@runload/client';

export function InputField(props: { input: AppInput; value: unknown; onChange: (value: unknown) => void }) {
  const { input, value, onChange } = props;
  const id = `input-${input.key}`;
  const label = <label for={id}>{input.key}</label>;
  switch (input.type) {
    case 'STRING':
      return (
        <div>
          {label}
          <textarea id={id} rows={3} value={String(value ?? '')} onInput={(e) => onChange(e.currentTarget.value)} />
        </div>
      );
    case 'INT':
    case 'FLOAT':
      return (
        <div>
          {label}
          <input
            id={id}
            type="number"
            inputMode={input.type === 'INT' ? 'numeric' : 'decimal'}
            min={input.min}
            max={input.max}
            step={input.step ?? (input.type === 'INT' ? 1 : 'any')}
            value={typeof value === 'number' ? value : ''}
            onInput={(e) => onChange(e.currentTarget.value === '' ? undefined : Number(e.currentTarget.value))}
          />
        </div>
      );
    case 'BOOLEAN':
      return (
        <div>
          <label for={id}>
            <input id={id} type="checkbox" checked={value === true} onChange={(e) => onChange(e.currentTarget.checked)} />
            {input.key}
          </label>
        </div>
      );
    case 'COMBO': {
      const options = input.options ?? [];
      const selected = options.findIndex((o) => o === value);
      return (
        <div>
          {label}
          <select id={id} value={String(selected)} onChange={(e) => onChange(options[Number(e.currentTarget.value)])}>
            {options.map((option, index) => (
              <option key={index} value={String(index)}>
                {String(option)}
              </option>
            ))}
          </select>
        </div>
      );
    }
    default:
      return null;
  }
}
