import type { HTMLAttributes } from "react";
import { cx } from "./class-names";

/** Text cut to one line with an ellipsis; the whole text shows on hover (title). */
export function TruncatedText({ text, className, ...props }: { text: string } & HTMLAttributes<HTMLSpanElement>) {
  return (
    <span className={cx("block truncate", className)} title={text} {...props}>
      {text}
    </span>
  );
}
