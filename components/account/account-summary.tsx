"use client";

import { useQuery } from "@tanstack/react-query";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { meQuery } from "@/lib/query/account";
import type { Me } from "@/lib/users/views";

const numberFormat = new Intl.NumberFormat("en-US");

/** Who is signed in; kept fresh through /api/me (the allowance shrinks as keys are issued). */
export function AccountSummary({ initialMe }: { initialMe: Me }) {
  const { data: me } = useQuery({ ...meQuery(), initialData: initialMe });

  return (
    <Card>
      <CardHeader>
        <CardTitle as="h2">Profile</CardTitle>
      </CardHeader>
      <CardContent>
        <dl className="grid gap-x-8 gap-y-4 text-sm sm:grid-cols-2">
          <div className="flex min-w-0 flex-col gap-1">
            <dt className="text-muted">Email</dt>
            <dd className="truncate font-medium" title={me.email}>
              {me.email}
            </dd>
          </div>
          <div className="flex flex-col gap-1">
            <dt className="text-muted">Name</dt>
            <dd className="font-medium">{me.name || "—"}</dd>
          </div>
          <div className="flex flex-col items-start gap-1">
            <dt className="text-muted">Role</dt>
            <dd>
              <Badge variant={me.role === "admin" ? "accent" : "neutral"}>{me.role === "admin" ? "Admin" : "Analyst"}</Badge>
            </dd>
          </div>
          <div className="flex flex-col gap-1">
            <dt className="text-muted">Credit allowance</dt>
            <dd className="font-medium tabular-nums">
              {me.role === "admin" ? (
                <>
                  Unlimited <span className="font-normal text-muted">(administrators grant credits freely)</span>
                </>
              ) : (
                `${numberFormat.format(me.creditAllowance)} credits left to give to new keys`
              )}
            </dd>
          </div>
        </dl>
      </CardContent>
    </Card>
  );
}
