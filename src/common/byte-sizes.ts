// Sizes in bytes as people read them in messages and logs.

/** In the unit that fits: 512 B, 12.3 KB, 4.0 MB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Always in megabytes (0.3 MB), so that a size and the bound it is set against read alike. */
export function megabytes(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MB`;
}
