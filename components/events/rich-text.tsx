import { Fragment } from "react";

/**
 * Free text from a record (event details) as React text nodes: line breaks are kept by the
 * caller's `white-space: pre-line`, emoji are just characters, hashtags become highlighted spans.
 * Never HTML: markup in the text ("<script>…") is shown as typed.
 */
const HASHTAG = /(?<=^|\s)(#\p{L}[\p{L}\p{N}_]*)/gu;

export const splitHashtags = (text: string): Array<{ text: string; hashtag: boolean }> =>
  text
    .split(HASHTAG)
    .map((part, index) => ({ text: part, hashtag: index % 2 === 1 }))
    .filter((part) => part.text !== "");

export function RichText({ text }: { text: string }) {
  return (
    <>
      {splitHashtags(text).map((part, index) =>
        part.hashtag ? (
          <span key={index} className="font-medium text-accent" data-hashtag="">
            {part.text}
          </span>
        ) : (
          <Fragment key={index}>{part.text}</Fragment>
        ),
      )}
    </>
  );
}
