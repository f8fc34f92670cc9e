import type { ChangeEvent } from "react";

type ValueElement = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/**
 * `value` and `onChange` of a form control whose text lives in a piece of state: `<Input {...bindValue(name, setName)} />`.
 * `onEdit` runs after each change, e.g. to clear a problem shown for the value the user is now editing.
 */
export const bindValue = (value: string, setValue: (value: string) => void, onEdit?: () => void) => ({
  value,
  onChange: (event: ChangeEvent<ValueElement>) => {
    setValue(event.target.value);
    onEdit?.();
  },
});
