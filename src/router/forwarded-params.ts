// A request's params as its child gets them: the child's own name for the tool or prompt,
// and without the caller's progress token (the SDK, or the fast path, gives the child one
// of ours and maps it back).
/** The caller's params for the child: its own name; our progress token replaces the caller's (the SDK sets it). */
export function forwardedParams<P extends { name: string; _meta?: Record<string, unknown> | undefined }>(
  params: P,
  childName: string,
): P {
  const forwarded = withoutProgressToken(params);
  forwarded.name = childName; // the copy's own member: one copy per call, not two
  return forwarded;
}

/**
 * A copy of `params` without the caller's progress token (the child is given one of ours);
 * an empty `_meta` is dropped. Built without `delete`, which would leave the copy in V8's
 * slow dictionary mode for the serialization that follows (this runs on every forwarded call).
 */
export function withoutProgressToken<P extends object>(params: P): P {
  const { _meta, ...rest } = params as P & { _meta?: Record<string, unknown> };
  if (_meta === undefined) return rest as P;
  const { progressToken: _ignored, ...meta } = _meta;
  return (Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest) as P;
}
