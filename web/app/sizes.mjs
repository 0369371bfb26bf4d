// A count of bytes as people read it (decimal units: 2.10 MB), shared by the History and
// Storage panels.

export function readableBytes(count) {
  const units = ["bytes", "kB", "MB", "GB", "TB"];
  let value = count;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return unit === 0 ? `${count} bytes` : `${value.toFixed(value < 10 ? 2 : 1)} ${units[unit]}`;
}
