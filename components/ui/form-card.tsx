import type { FormEvent, ReactNode } from "react";
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "./card";

/**
 * A form that is a card of its own: title and description, then the fields, then the buttons.
 * While the form's request runs the form says it is busy.
 */
export function FormCard({
  title,
  description,
  onSubmit,
  pending,
  contentClassName,
  footerClassName,
  footer,
  children,
}: {
  title: string;
  description: ReactNode;
  onSubmit: (event: FormEvent<HTMLFormElement>) => void;
  pending: boolean;
  contentClassName?: string;
  footerClassName?: string;
  footer: ReactNode;
  children: ReactNode;
}) {
  return (
    <Card>
      <CardHeader>
        <CardTitle as="h2">{title}</CardTitle>
        <CardDescription>{description}</CardDescription>
      </CardHeader>
      <form noValidate onSubmit={onSubmit} aria-busy={pending || undefined}>
        <CardContent className={contentClassName}>{children}</CardContent>
        <CardFooter className={footerClassName}>{footer}</CardFooter>
      </form>
    </Card>
  );
}
