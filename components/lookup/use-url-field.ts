"use client";

import { useState } from "react";

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
