import { demoFixtures } from "@/lib/demo/fixtures";

/**
 * The demo data's pin-board users and profiles (lib/demo/fixtures.ts), named by what they hold:
 * USER_30 has 30 followers, PROFILE_45 has 45 publications, the ones ending in 0 have none.
 */
const [user10000, user30, user0] = demoFixtures.pinUsers;
const [profile45, profile7, profile0] = demoFixtures.profiles;

export const USER_10000 = user10000.userid;
export const USER_30 = user30.userid;
export const USER_0 = user0.userid;
export const PROFILE_45 = profile45.urn;
export const PROFILE_7 = profile7.urn;
export const PROFILE_0 = profile0.urn;
