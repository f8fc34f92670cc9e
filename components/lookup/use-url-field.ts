"use client";

import { useState, type FormEvent } from "react";

/** The lookup field of a page whose URL holds the looked-up value, and the problem shown under it. */
export type UrlField = {
  value: string;
  setValue: (value: string) => void;
  problem: string | null;
  setProblem: (problem: string | null) => void;
};

/**
 * The field starts from the URL's value and follows the URL (Back/Forward, a pasted link)
 * without an effect: the state is adjusted while rendering. `problemOf` says what is wrong
 * with a value that came from the URL, if anything.
 */
export const useUrlField = (urlValue: string, problemOf: (value: string) => string | null): UrlField => {
  const [value, setValue] = useState(urlValue);
  const [problem, setProblem] = useState<string | null>(() => problemOf(urlValue));
  const [shownUrlValue, setShownUrlValue] = useState(urlValue);
  if (shownUrlValue !== urlValue) {
    setShownUrlValue(urlValue);
    setValue(urlValue);
    setProblem(problemOf(urlValue));
  }
  return { value, setValue, problem, setProblem };
};

/**
 * Run pressed (the form itself goes nowhere): the field's trimmed value when `isValid` accepts it,
 * with its problem cleared; otherwise null, with `problem` shown under the field.
 */
export const submittedValue = (
  event: FormEvent<HTMLFormElement>,
  field: UrlField,
  isValid: (value: string) => boolean,
  problem: string,
): string | null => {
  event.preventDefault();
  const value = field.value.trim();
  const valid = isValid(value);
  field.setProblem(valid ? null : problem);
  return valid ? value : null;
};
