import type { ChangeEvent } from "react";

type ValueElement = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/** `value` and `onChange` of a form control whose text lives in a piece of state: `<Input {...bindValue(name, setName)} />`. */
export const bindValue = (value: string, setValue: (value: string) => void) => ({
  value,
  onChange: (event: ChangeEvent<ValueElement>) => setValue(event.target.value),
});
