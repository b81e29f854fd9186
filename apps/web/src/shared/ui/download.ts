/**
 * Hands a file to the browser's download (a temporary link with `download`): an exported
 * workbook, a broker certificate. The object URL is revoked a minute later, once the browser
 * has taken the file.
 */
export function saveFile(fileName: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.appendChild(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
