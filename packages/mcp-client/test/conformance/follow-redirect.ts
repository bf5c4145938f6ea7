/** Plays the user's browser: loads the authorization URL and follows its redirect to the loopback listener. */
export async function followRedirect(url: string): Promise<boolean> {
  const response = await fetch(url, { redirect: "manual" });
  const location = response.headers.get("location");
  await response.body?.cancel();
  if (!location) return false;
  const callback = await fetch(new URL(location, url));
  await callback.body?.cancel();
  return true;
}
